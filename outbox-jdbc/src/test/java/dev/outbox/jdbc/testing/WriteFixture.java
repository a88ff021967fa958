package dev.outbox.jdbc.testing;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.jdbc.JdbcRecordStore;
import dev.outbox.jdbc.dialect.SqlStatements;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/** A write repository on a fresh test database, with its transaction manager and the commits it reported. */
public interface WriteFixture extends AutoCloseable {

    TestDatabase database();

    OutboxRecordRepository repository();

    PlatformTransactionManager transactionManager();

    JdbcRecordStore recordStore();

    /** The repository's commit hooks. */
    CountingCommitHooks commitHooks();

    /** How many transactions with saved records committed (the repository's after-commit callback). */
    default int committedTransactions() {
        return commitHooks().commits();
    }

    /** The partitions of each committed transaction with records, in commit order. */
    default List<Set<Integer>> committedPartitions() {
        return commitHooks().committedPartitions();
    }

    default JdbcTemplate jdbc() {
        return new JdbcTemplate(database().dataSource());
    }

    default void deleteAllRecords() {
        jdbc().update("DELETE FROM " + sql().recordTable());
    }

    /** The statements of the fixture's database on its tables. */
    SqlStatements sql();

    /** A fixture made by {@code create} on a new database of {@code kind}, which is dropped if that fails. */
    static <F extends WriteFixture> F onNewDatabase(TestDatabase.Kind kind, Function<TestDatabase, F> create) {
        TestDatabase database = TestDatabase.create(kind);
        try {
            return create.apply(database);
        } catch (RuntimeException e) {
            database.close();
            throw e;
        }
    }

    @Override
    void close();
}
