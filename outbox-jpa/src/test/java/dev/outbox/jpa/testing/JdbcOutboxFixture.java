package dev.outbox.jpa.testing;

import dev.outbox.jpa.CommitHooks;
import dev.outbox.jpa.JdbcOutboxRecordRepository;
import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.OutboxSchemaInitializer;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.spi.OutboxObservation;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
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
    private final AtomicInteger commits = new AtomicInteger();
    private final List<Set<Integer>> committedPartitions = new CopyOnWriteArrayList<>();

    private JdbcOutboxFixture(TestDatabase database, int maxPayloadBytes) {
        this.database = database;
        OutboxSchemaInitializer.apply(database.dataSource());
        DatabaseDialect dialect = DatabaseDialect.detect(database.dataSource());
        this.transactionManager = new DataSourceTransactionManager(database.dataSource());
        this.repository = new JdbcOutboxRecordRepository(database.dataSource(), transactionManager, dialect,
                maxPayloadBytes, new CommitHooks() {
                    @Override
                    public void afterCommit(Set<Integer> partitions) {
                        commits.incrementAndGet();
                        committedPartitions.add(Set.copyOf(partitions));
                    }
                }, OutboxObservation.NOOP);
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
    public int committedTransactions() {
        return commits.get();
    }

    @Override
    public List<Set<Integer>> committedPartitions() {
        return List.copyOf(committedPartitions);
    }

    @Override
    public void close() {
        database.close();
    }
}
