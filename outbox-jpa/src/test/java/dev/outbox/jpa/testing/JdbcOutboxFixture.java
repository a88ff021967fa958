package dev.outbox.jpa.testing;

import dev.outbox.jpa.JdbcOutboxRecordRepository;
import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.OutboxSchemaInitializer;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.spi.OutboxObservation;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The JDBC write repository on a fresh test database, with plain Spring JDBC transactions (no JPA, no Spring Boot),
 * and the JDBC record store.
 */
public final class JdbcOutboxFixture implements WriteFixture {

    private final TestDatabase database;
    private final DataSourceTransactionManager transactionManager;
    private final JdbcOutboxRecordRepository repository;
    private final JdbcRecordStore recordStore;
    private final CountingCommitHooks hooks = new CountingCommitHooks();

    private JdbcOutboxFixture(TestDatabase database, int maxPayloadBytes) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource());
        DatabaseDialect dialect = DatabaseDialect.detect(database.dataSource());
        this.transactionManager = new DataSourceTransactionManager(database.dataSource());
        this.repository = new JdbcOutboxRecordRepository(database.dataSource(), transactionManager, dialect,
                maxPayloadBytes, hooks, OutboxObservation.NOOP);
        this.recordStore = new JdbcRecordStore(database.dataSource(), dialect);
    }

    public static JdbcOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes) {
        TestDatabase database = TestDatabase.create(kind);
        try {
            return new JdbcOutboxFixture(database, maxPayloadBytes);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    @Override
    public TestDatabase database() {
        return database;
    }

    @Override
    public JdbcOutboxRecordRepository repository() {
        return repository;
    }

    @Override
    public DataSourceTransactionManager transactionManager() {
        return transactionManager;
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
        database.close();
    }
}
