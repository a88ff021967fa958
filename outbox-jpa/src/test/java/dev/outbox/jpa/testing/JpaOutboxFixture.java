package dev.outbox.jpa.testing;

import dev.outbox.jdbc.JdbcRecordStore;
import dev.outbox.jdbc.OutboxSchemaInitializer;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.CountingCommitHooks;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManagerFactory;
import java.util.Map;
import java.util.function.Function;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * The JPA write repository on a fresh test database, assembled with plain Spring ORM (no Spring Boot): a Hibernate
 * entity manager factory with one application entity ({@link Shipment}, whose table Hibernate creates and drops, as
 * Spring Boot's default does on an embedded database), the JPA transaction manager, the repository and the JDBC record
 * store.
 */
public final class JpaOutboxFixture implements WriteFixture {

    private final TestDatabase database;
    private final SqlStatements sql;
    private final LocalContainerEntityManagerFactoryBean entityManagerFactoryBean;
    private final JpaTransactionManager transactionManager;
    private final JpaOutboxRecordRepository repository;
    private final JdbcRecordStore recordStore;
    private final CountingCommitHooks hooks = new CountingCommitHooks();

    private JpaOutboxFixture(TestDatabase database, int maxPayloadBytes, OutboxTables tables) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource(), tables);
        this.sql = DatabaseDialect.detect(database.dataSource(), tables);
        this.entityManagerFactoryBean = entityManagerFactory(database, "create-drop");
        this.transactionManager = new JpaTransactionManager(entityManagerFactory());
        this.repository = JpaOutboxRecordRepository.create(entityManagerFactory(), transactionManager, sql,
                maxPayloadBytes, hooks, OutboxObservation.NOOP);
        this.recordStore = new JdbcRecordStore(database.dataSource(), sql);
    }

    /** On the default tables. */
    public static JpaOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes) {
        return create(kind, maxPayloadBytes, database -> OutboxTables.defaults());
    }

    /** On the tables {@code tables} chooses in the new database (which it may give a schema first). */
    public static JpaOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes,
            Function<TestDatabase, OutboxTables> tables) {
        return WriteFixture.onNewDatabase(kind, database -> new JpaOutboxFixture(database, maxPayloadBytes,
                tables.apply(database)));
    }

    /**
     * An entity manager factory on {@code database} mapping {@link Shipment} alone, with Hibernate's schema tooling
     * set to {@code ddlAuto} ({@code hibernate.hbm2ddl.auto}).
     */
    public static LocalContainerEntityManagerFactoryBean entityManagerFactory(TestDatabase database, String ddlAuto) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setDataSource(database.dataSource());
        factory.setManagedTypes(PersistenceManagedTypes.of(Shipment.class.getName()));
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(Map.of("hibernate.hbm2ddl.auto", ddlAuto));
        factory.afterPropertiesSet();
        return factory;
    }

    @Override
    public TestDatabase database() {
        return database;
    }

    @Override
    public SqlStatements sql() {
        return sql;
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
