package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/**
 * The records saved in the current transaction and not inserted yet, for a write repository: bound to the transaction
 * at its first record, with a synchronization that inserts them (one batch, on the transaction's connection) and runs
 * the commit hooks just before it commits; a rollback runs neither. A transaction started inside it (REQUIRES_NEW)
 * collects records of its own.
 */
final class TransactionRecords {

    private static final Logger log = LoggerFactory.getLogger(TransactionRecords.class);

    private final Consumer<List<OutboxRecord>> insert;
    private final CommitHooks hooks;
    private final Object key = new Object();

    /** @param insert inserts a batch on the current transaction's connection */
    TransactionRecords(Consumer<List<OutboxRecord>> insert, CommitHooks hooks) {
        this.insert = insert;
        this.hooks = hooks;
    }

    /** Adds the record to the current transaction's, which must have synchronization active. */
    OutboxRecord add(OutboxRecord record) {
        return pending().add(record);
    }

    /** Inserts the current transaction's pending records, so that a query in it sees them. */
    void flush() {
        Pending pending = (Pending) TransactionSynchronizationManager.getResource(key);
        if (pending != null) {
            pending.insert();
        }
    }

    private Pending pending() {
        Pending pending = (Pending) TransactionSynchronizationManager.getResource(key);
        if (pending != null) {
            return pending;
        }
        Pending created = new Pending();
        TransactionSynchronizationManager.bindResource(key, created);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void suspend() {
                TransactionSynchronizationManager.unbindResource(key);
            }

            @Override
            public void resume() {
                TransactionSynchronizationManager.bindResource(key, created);
            }

            @Override
            public void beforeCommit(boolean readOnly) {
                created.insert();
                hooks.beforeCommit(Collections.unmodifiableSet(created.partitions));
            }

            @Override
            public void afterCompletion(int status) {
                TransactionSynchronizationManager.unbindResourceIfPossible(key);
                if (status == STATUS_COMMITTED) {
                    try {
                        hooks.afterCommit(Collections.unmodifiableSet(created.partitions));
                    } catch (RuntimeException e) {
                        // Only an early wake-up is lost; the processor's poll finds the records anyway.
                        log.debug("Outbox after-commit callback failed", e);
                    }
                }
            }
        });
        return created;
    }

    /** One transaction's records: those not inserted yet, and every partition written. Used by its thread only. */
    private final class Pending {

        private final List<OutboxRecord> records = new ArrayList<>();
        private final Set<Integer> partitions = new TreeSet<>();

        OutboxRecord add(OutboxRecord record) {
            records.add(record);
            partitions.add(record.getPartition());
            return record;
        }

        void insert() {
            if (records.isEmpty()) {
                return;
            }
            List<OutboxRecord> batch = List.copyOf(records);
            records.clear();
            TransactionRecords.this.insert.accept(batch);
        }
    }
}
