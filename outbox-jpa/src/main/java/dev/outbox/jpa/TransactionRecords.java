package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxObservation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The save of the write repositories: joins a record to the current transaction (or to one of its own). The records
 * saved in a transaction are bound to it at its first record, with a synchronization that inserts them (one batch, on
 * the transaction's connection) and runs the commit hooks just before it commits; a rollback runs neither. A
 * transaction started inside it (REQUIRES_NEW) collects records of its own.
 */
final class TransactionRecords {

    private static final Logger log = LoggerFactory.getLogger(TransactionRecords.class);

    private final TransactionTemplate transactions;
    private final Consumer<List<OutboxRecord>> insert;
    private final CommitHooks hooks;
    private final int maxPayloadBytes;
    private final OutboxObservation observation;
    private final Object key = new Object();

    /**
     * @param insert inserts a batch on the current transaction's connection
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param observation captures the writer's trace context, stored with each record
     */
    TransactionRecords(PlatformTransactionManager transactionManager, Consumer<List<OutboxRecord>> insert,
            CommitHooks hooks, int maxPayloadBytes, OutboxObservation observation) {
        this.transactions = new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
        this.insert = insert;
        this.hooks = Objects.requireNonNull(hooks, "hooks");
        this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
        this.observation = Objects.requireNonNull(observation, "observation");
    }

    /**
     * Joins {@code record} to the current transaction (or to one of its own): inserted with the transaction's other
     * records just before it commits, or at a read through the repository before that.
     */
    OutboxRecord save(OutboxRecord record) {
        Objects.requireNonNull(record, "record must not be null");
        OutboxRecord.checkPayloadSize(record.getPayload(), maxPayloadBytes);
        return Objects.requireNonNull(transactions.execute(status -> {
            OutboxRecord stored = withTraceContext(record);
            if (TransactionSynchronizationManager.isSynchronizationActive()) {
                return pending().add(stored);
            }
            // a transaction manager that keeps no synchronizations: inserted at once, still in its transaction
            insert.accept(List.of(stored));
            return stored;
        }));
    }

    /** Tracing must never fail a business write: a context that cannot be captured or stored is left out. */
    private OutboxRecord withTraceContext(OutboxRecord record) {
        try {
            String context = observation.contextForWrite(record);
            return context == null ? record : record.withTraceContext(context);
        } catch (RuntimeException e) {
            log.debug("Outbox record {}: trace context not stored: {}", record.getId(), e.toString());
            return record;
        }
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
