package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxObservation;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Consumer;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The one owner of "join the business transaction" for an outbox, behind every write path (the JDBC and the JPA
 * repository, so {@code Outbox}, each named outbox and the event listener). It decides by the outbox's
 * {@link DataSource} and the transaction bound to it, whichever transaction manager began that transaction, and never
 * runs a transaction manager of its own inside another one:
 * <ul>
 *   <li>a transaction bound to the DataSource: the record joins it. The transaction's records are inserted as one
 *       batch on its connection just before it commits; a rollback, or a rollback to a savepoint taken before a
 *       record, discards the record;</li>
 *   <li>no transaction open at all: the record is saved in a transaction of its own (the outbox's transaction
 *       manager), committed before {@link #save} returns;</li>
 *   <li>a transaction open only on another resource (another database, say): refused, since the record could not
 *       commit with that transaction's change;</li>
 *   <li>a read-only transaction, or one that has already committed (an {@code afterCommit} callback): refused.</li>
 * </ul>
 * A record saved while the transaction commits (from a {@code BEFORE_COMMIT} listener, another synchronization's
 * {@code beforeCommit}, or an entity callback during the commit's flush) is inserted at once, in that transaction.
 */
final class TransactionJoin {

    private static final Logger log = LoggerFactory.getLogger(TransactionJoin.class);

    private final DataSource dataSource;
    private final TransactionTemplate ownTransactions;
    private final Consumer<List<OutboxRecord>> insert;
    private final CommitHooks hooks;
    private final int maxPayloadBytes;
    private final OutboxObservation observation;
    private final Object key = new Object();

    /**
     * @param dataSource the outbox's data source: a record joins the transaction bound to it
     * @param transactionManager begins the transaction of a save made outside any transaction; must manage
     *     {@code dataSource}
     * @param insert inserts a batch on the connection of the transaction bound to {@code dataSource}
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param observation captures the writer's trace context, stored with each record
     */
    TransactionJoin(DataSource dataSource, PlatformTransactionManager transactionManager,
            Consumer<List<OutboxRecord>> insert, CommitHooks hooks, int maxPayloadBytes,
            OutboxObservation observation) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.ownTransactions = new TransactionTemplate(
                Objects.requireNonNull(transactionManager, "transactionManager"));
        this.insert = Objects.requireNonNull(insert, "insert");
        this.hooks = Objects.requireNonNull(hooks, "hooks");
        this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
        this.observation = Objects.requireNonNull(observation, "observation");
    }

    /** Whether a transaction is bound to the outbox's DataSource, so that a save now joins it. */
    boolean isTransactionActive() {
        if (!TransactionSynchronizationManager.isActualTransactionActive()) {
            return false;
        }
        return TransactionSynchronizationManager.hasResource(key) || BoundTransactions.isOpen(dataSource);
    }

    /** Joins {@code record} to the business transaction, as the class comment says. */
    OutboxRecord save(OutboxRecord record) {
        Objects.requireNonNull(record, "record must not be null");
        OutboxRecord.checkPayloadSize(record.getPayload(), maxPayloadBytes);
        OutboxRecord stored = withTraceContext(record);
        Joined joined = joined();
        if (joined != null) {
            return joined.add(stored);
        }
        if (TransactionSynchronizationManager.isActualTransactionActive()) {
            throw new IllegalStateException("Outbox record of aggregate '" + record.getAggregateId() + "' ("
                    + record.getEventType() + "): a transaction is open, but not on the outbox's DataSource, so the "
                    + "record could not commit with it. Open the transaction with the transaction manager of the "
                    + "outbox's DataSource, or save the record in a transaction of its own on that DataSource "
                    + "(PROPAGATION_REQUIRES_NEW)");
        }
        return Objects.requireNonNull(ownTransactions.execute(status -> {
            Joined own = joined();
            if (own != null) {
                return own.add(stored);
            }
            if (!TransactionSynchronizationManager.isSynchronizationActive()) {
                // a transaction manager that keeps no synchronizations: inserted at once, still in its transaction
                insert.accept(List.of(stored));
                return stored;
            }
            throw new IllegalStateException("Outbox: the outbox's transaction manager "
                    + ownTransactions.getTransactionManager() + " began a transaction that is not bound to the "
                    + "outbox's DataSource; give the outbox the transaction manager of its DataSource");
        }));
    }

    /** Inserts the current transaction's pending records, so that a query in it sees them. */
    void flush() {
        Joined joined = (Joined) TransactionSynchronizationManager.getResource(key);
        if (joined != null) {
            joined.insertPending();
        }
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

    /** The records of the transaction bound to the DataSource, joined at its first record; null without one. */
    private @Nullable Joined joined() {
        Joined joined = (Joined) TransactionSynchronizationManager.getResource(key);
        if (joined != null) {
            return joined;
        }
        if (!isTransactionActive() || !TransactionSynchronizationManager.isSynchronizationActive()) {
            return null;
        }
        if (TransactionSynchronizationManager.isCurrentTransactionReadOnly()) {
            throw new IllegalStateException("Outbox: the transaction is read-only, so it cannot write outbox records; "
                    + "save them in a read-write transaction");
        }
        TransactionPhase phase = TransactionPhase.current();
        if (phase == TransactionPhase.COMPLETED) {
            throw completed();
        }
        Joined created = new Joined(phase == TransactionPhase.COMMITTING);
        TransactionSynchronizationManager.bindResource(key, created);
        TransactionSynchronizationManager.registerSynchronization(created);
        return created;
    }

    private static IllegalStateException completed() {
        return new IllegalStateException("Outbox: the transaction has already committed or rolled back (a save from "
                + "an afterCommit or afterCompletion callback), so the record could not commit with it: save it in a "
                + "transaction of its own (PROPAGATION_REQUIRES_NEW)");
    }

    /**
     * One transaction's records, in save order: those before {@link #inserted} are in the database. Taking a
     * savepoint marks how far both went; rolling back to it drops the records saved since and makes those inserted
     * since pending again (the database undid their insert). Used by the transaction's thread only.
     */
    private final class Joined implements TransactionSynchronization {

        private final List<OutboxRecord> records = new ArrayList<>();
        private final List<SavepointMark> savepoints = new ArrayList<>();
        private final Set<Integer> notified = new TreeSet<>();
        private int inserted;
        /** From its beforeCommit on (or when joined during the commit): records are inserted as they come. */
        private boolean committing;

        Joined(boolean committing) {
            this.committing = committing;
        }

        OutboxRecord add(OutboxRecord record) {
            if (committing && TransactionPhase.current() == TransactionPhase.COMPLETED) {
                throw completed();
            }
            records.add(record);
            if (committing) {
                try {
                    insertPending();
                } catch (RuntimeException e) {
                    // refused to the caller, who decides; it must not come back with a later record's insert
                    records.subList(inserted, records.size()).clear();
                    throw e;
                }
                notifyPartitions();
            }
            return record;
        }

        void insertPending() {
            if (inserted == records.size()) {
                return;
            }
            List<OutboxRecord> batch = List.copyOf(records.subList(inserted, records.size()));
            insert.accept(batch);
            inserted = records.size();
        }

        private void notifyPartitions() {
            Set<Integer> partitions = partitions();
            partitions.removeAll(notified);
            if (!partitions.isEmpty()) {
                hooks.beforeCommit(Collections.unmodifiableSet(partitions));
                notified.addAll(partitions);
            }
        }

        private Set<Integer> partitions() {
            Set<Integer> partitions = new TreeSet<>();
            records.forEach(record -> partitions.add(record.getPartition()));
            return partitions;
        }

        @Override
        public void savepoint(Object savepoint) {
            savepoints.add(new SavepointMark(savepoint, records.size(), inserted));
        }

        @Override
        public void savepointRollback(Object savepoint) {
            int at = savepoints.size() - 1;
            while (at >= 0 && savepoints.get(at).savepoint() != savepoint) {
                at--;
            }
            if (at < 0) {
                // taken before this transaction's first record: every record came after it
                records.clear();
                inserted = 0;
                savepoints.clear();
                return;
            }
            SavepointMark mark = savepoints.get(at);
            records.subList(mark.records(), records.size()).clear();
            inserted = Math.min(inserted, mark.inserted());
            savepoints.subList(at + 1, savepoints.size()).clear();
        }

        @Override
        public void suspend() {
            TransactionSynchronizationManager.unbindResource(key);
        }

        @Override
        public void resume() {
            TransactionSynchronizationManager.bindResource(key, this);
        }

        @Override
        public void beforeCommit(boolean readOnly) {
            committing = true;
            insertPending();
            notifyPartitions();
        }

        @Override
        public void afterCompletion(int status) {
            TransactionSynchronizationManager.unbindResourceIfPossible(key);
            if (status == STATUS_COMMITTED && !records.isEmpty()) {
                try {
                    hooks.afterCommit(Collections.unmodifiableSet(partitions()));
                } catch (RuntimeException e) {
                    // Only an early wake-up is lost; the processor's poll finds the records anyway.
                    log.debug("Outbox after-commit callback failed", e);
                }
            }
        }
    }

    /** How many records the transaction had, and how many of them were inserted, when {@code savepoint} was taken. */
    private record SavepointMark(Object savepoint, int records, int inserted) {
    }
}
