package dev.outbox.jdbc.testing;

import dev.outbox.jdbc.JdbcOutboxRecordRepository;
import dev.outbox.jdbc.JdbcRecordStore;
import dev.outbox.jdbc.OutboxSchemaInitializer;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import java.util.function.Function;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;

/**
 * The JDBC write repository on a fresh test database, with plain Spring JDBC transactions (no JPA, no Spring Boot),
 * and the JDBC record store.
 */
public final class JdbcOutboxFixture implements WriteFixture {

    private final TestDatabase database;
    private final SqlStatements sql;
    private final DataSourceTransactionManager transactionManager;
    private final JdbcOutboxRecordRepository repository;
    private final JdbcRecordStore recordStore;
    private final CountingCommitHooks hooks = new CountingCommitHooks();

    private JdbcOutboxFixture(TestDatabase database, int maxPayloadBytes, OutboxTables tables) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource(), tables);
        this.sql = DatabaseDialect.detect(database.dataSource(), tables);
        this.transactionManager = new DataSourceTransactionManager(database.dataSource());
        this.repository = new JdbcOutboxRecordRepository(database.dataSource(), transactionManager, sql,
                maxPayloadBytes, hooks, OutboxObservation.NOOP);
        this.recordStore = new JdbcRecordStore(database.dataSource(), sql);
    }

    /** On the default tables. */
    public static JdbcOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes) {
        return create(kind, maxPayloadBytes, database -> OutboxTables.defaults());
    }

    /** On the tables {@code tables} chooses in the new database (which it may give a schema first). */
    public static JdbcOutboxFixture create(TestDatabase.Kind kind, int maxPayloadBytes,
            Function<TestDatabase, OutboxTables> tables) {
        return WriteFixture.onNewDatabase(kind, database -> new JdbcOutboxFixture(database, maxPayloadBytes,
                tables.apply(database)));
    }

    @Override
    public TestDatabase database() {
        return database;
    }

    @Override
    public SqlStatements sql() {
        return sql;
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
