package dev.outbox.jpa.testing;

import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jpa.OutboxRecordEntity;
import dev.outbox.jpa.OutboxSchemaInitializer;
import dev.outbox.jpa.dialect.DatabaseDialect;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * The JPA stores on a fresh test database, assembled with plain Spring ORM (no Spring Boot): Hibernate entity
 * manager factory, JPA transaction manager, the write-side repository and the JDBC record store.
 */
public final class JpaOutboxFixture implements AutoCloseable {

    private final TestDatabase database;
    private final LocalContainerEntityManagerFactoryBean entityManagerFactoryBean;
    private final JpaTransactionManager transactionManager;
    private final JpaOutboxRecordRepository repository;
    private final JdbcRecordStore recordStore;
    private final AtomicInteger commits = new AtomicInteger();
    private final List<Set<Integer>> committedPartitions = new CopyOnWriteArrayList<>();

    private JpaOutboxFixture(TestDatabase database, int maxPayloadBytes) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource());
        this.entityManagerFactoryBean = entityManagerFactory(database, OutboxRecordEntity.class.getPackageName());
        this.transactionManager = new JpaTransactionManager(entityManagerFactory());
        this.repository = JpaOutboxRecordRepository.create(entityManagerFactory(), transactionManager,
                maxPayloadBytes, new JpaOutboxRecordRepository.CommitHooks() {
                    @Override
                    public void afterCommit(Set<Integer> partitions) {
                        commits.incrementAndGet();
                        committedPartitions.add(Set.copyOf(partitions));
                    }
                });
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

    public JpaTransactionManager transactionManager() {
        return transactionManager;
    }

    public JpaOutboxRecordRepository repository() {
        return repository;
    }

    public JdbcRecordStore recordStore() {
        return recordStore;
    }

    /** How many transactions with saved records committed (the repository's after-commit callback). */
    public int committedTransactions() {
        return commits.get();
    }

    /** The partitions of each committed transaction with records, in commit order. */
    public List<Set<Integer>> committedPartitions() {
        return List.copyOf(committedPartitions);
    }

    public JdbcTemplate jdbc() {
        return new JdbcTemplate(database.dataSource());
    }

    public void deleteAllRecords() {
        jdbc().update("DELETE FROM outbox_record");
    }

    @Override
    public void close() {
        entityManagerFactoryBean.destroy();
        database.close();
    }
}
