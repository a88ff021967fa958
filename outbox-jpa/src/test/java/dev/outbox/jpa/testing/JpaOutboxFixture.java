package dev.outbox.jpa.testing;

import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jpa.OutboxRecordEntity;
import dev.outbox.jpa.OutboxSchemaInitializer;
import dev.outbox.jpa.dialect.DatabaseDialect;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * The JPA stores on a fresh test database, assembled with plain Spring ORM (no Spring Boot): Hibernate entity
 * manager factory, JPA transaction manager, the write-side repository and the JDBC record store.
 */
public final class JpaOutboxFixture implements WriteFixture {

    private final TestDatabase database;
    private final LocalContainerEntityManagerFactoryBean entityManagerFactoryBean;
    private final JpaTransactionManager transactionManager;
    private final JpaOutboxRecordRepository repository;
    private final JdbcRecordStore recordStore;
    private final CountingCommitHooks hooks = new CountingCommitHooks();

    private JpaOutboxFixture(TestDatabase database, int maxPayloadBytes) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource());
        this.entityManagerFactoryBean = entityManagerFactory(database, OutboxRecordEntity.class.getPackageName());
        this.transactionManager = new JpaTransactionManager(entityManagerFactory());
        this.repository = JpaOutboxRecordRepository.create(entityManagerFactory(), transactionManager,
                maxPayloadBytes, hooks);
        this.recordStore = new JdbcRecordStore(database.dataSource(), DatabaseDialect.detect(database.dataSource()));
    }

    public static JpaOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes) {
        TestDatabase database = TestDatabase.create(kind);
        try {
            return new JpaOutboxFixture(database, maxPayloadBytes);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    /** An entity manager factory on {@code database} that scans {@code packageToScan} for entities. */
    public static LocalContainerEntityManagerFactoryBean entityManagerFactory(TestDatabase database,
            String packageToScan) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setDataSource(database.dataSource());
        factory.setPackagesToScan(packageToScan);
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", "none"));
        factory.afterPropertiesSet();
        return factory;
    }

    @Override
    public TestDatabase database() {
        return database;
    }

    public EntityManagerFactory entityManagerFactory() {
        EntityManagerFactory factory = entityManagerFactoryBean.getObject();
        if (factory == null) {
            throw new IllegalStateException("entity manager factory not initialized");
        }
        return factory;
    }

    @Override
    public JpaTransactionManager transactionManager() {
        return transactionManager;
    }

    @Override
    public JpaOutboxRecordRepository repository() {
        return repository;
    }

    @Override
    public JdbcRecordStore recordStore() {
        return recordStore;
    }

    @Override
    public CountingCommitHooks commitHooks() {
        return hooks;
    }

    @Override
    public void close() {
        entityManagerFactoryBean.destroy();
        database.close();
    }
}
