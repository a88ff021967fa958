package dev.outbox.jpa.testing;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.JdbcRecordStore;
import java.util.List;
import java.util.Set;
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
        jdbc().update("DELETE FROM outbox_record");
    }

    @Override
    void close();
}
