package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Collections;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.hibernate.Session;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactory;
import org.springframework.data.repository.Repository;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link OutboxRecordRepository} on Spring Data JPA: {@link #save(OutboxRecord)} joins the current (business)
 * transaction, so the record commits or rolls back with it; the transaction's records are inserted as one JDBC batch
 * on its own connection just before it commits. Without a transaction, a save runs in one of its own.
 * {@link CommitHooks} run once around the commit of a transaction with records, so that processors can look for them
 * at once instead of at their next poll.
 */
public final class JpaOutboxRecordRepository implements OutboxRecordRepository {

    private static final Logger log = LoggerFactory.getLogger(JpaOutboxRecordRepository.class);

    /**
     * The Spring Data repository doing the work. Nested, so that an application's repository scanning, which covers
     * this package through the starter's auto-configuration package, does not register it a second time.
     */
    interface OutboxRecordRows extends Repository<OutboxRecordEntity, String> {

        Optional<OutboxRecordEntity> findById(String id);

        List<OutboxRecordEntity> findByAggregateIdOrderBySequenceAsc(String aggregateId);

        List<OutboxRecordEntity> findByStatusOrderBySequenceAsc(OutboxRecordStatus status, Limit limit);

        long countByStatus(OutboxRecordStatus status);
    }

    private final OutboxRecordRows rows;
    private final EntityManager entityManager;
    private final RecordInserts inserts = new RecordInserts();
    private final TransactionTemplate transactions;
    private final int maxPayloadBytes;
    private final CommitHooks hooks;
    private final OutboxObservation observation;
    private final Object synchronizationKey = new Object();

    /** Callbacks around the commit of a transaction that saved records, with the partitions it wrote to. */
    public interface CommitHooks {

        /** No callbacks. */
        CommitHooks NONE = new CommitHooks() {
        };

        /** In the transaction, just before it commits (to notify other instances, say); a failure fails the commit. */
        default void beforeCommit(Set<Integer> partitions) {
        }

        /** After the commit (to wake the local processor, say); must be fast. */
        default void afterCommit(Set<Integer> partitions) {
        }
    }

    /**
     * @param entityManager a transaction-bound shared entity manager (as Spring injects with
     *     {@code @PersistenceContext} or {@code SharedEntityManagerCreator})
     * @param transactionManager the application's transaction manager
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param hooks called once around the commit of each transaction that saved records
     */
    public JpaOutboxRecordRepository(EntityManager entityManager, PlatformTransactionManager transactionManager,
            int maxPayloadBytes, CommitHooks hooks) {
        this(entityManager, transactionManager, maxPayloadBytes, hooks, OutboxObservation.NOOP);
    }

    /**
     * @param observation captures the writer's trace context, stored with each record
     * @see #JpaOutboxRecordRepository(EntityManager, PlatformTransactionManager, int, CommitHooks)
     */
    public JpaOutboxRecordRepository(EntityManager entityManager, PlatformTransactionManager transactionManager,
            int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        this.observation = Objects.requireNonNull(observation, "observation");
        this.entityManager = Objects.requireNonNull(entityManager, "entityManager");
        this.rows = new JpaRepositoryFactory(entityManager).getRepository(OutboxRecordRows.class);
        this.transactions = new TransactionTemplate(Objects.requireNonNull(transactionManager, "transactionManager"));
        this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
        this.hooks = Objects.requireNonNull(hooks, "hooks");
    }

    /**
     * A repository on the application's entity manager factory, checking first that the factory maps
     * {@link OutboxRecordEntity}: with an explicit {@code @EntityScan} it must list this package too.
     */
    public static JpaOutboxRecordRepository create(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, int maxPayloadBytes, CommitHooks hooks) {
        return create(entityManagerFactory, transactionManager, maxPayloadBytes, hooks, OutboxObservation.NOOP);
    }

    /** As {@link #create(EntityManagerFactory, PlatformTransactionManager, int, CommitHooks)}, with tracing. */
    public static JpaOutboxRecordRepository create(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, int maxPayloadBytes, CommitHooks hooks,
            OutboxObservation observation) {
        try {
            entityManagerFactory.getMetamodel().entity(OutboxRecordEntity.class);
        } catch (IllegalArgumentException e) {
            throw new IllegalStateException("Outbox: the JPA persistence unit does not map " + OutboxRecordEntity.class
                    .getName() + ". If the application uses @EntityScan, add " + OutboxRecordEntity.class.getPackageName()
                    + " to it, e.g. @EntityScan(basePackageClasses = {Order.class, OutboxRecordEntity.class})", e);
        }
        return new JpaOutboxRecordRepository(
                SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory), transactionManager,
                maxPayloadBytes, hooks, observation);
    }

    /**
     * Joins {@code record} to the current transaction (or to one of its own): the transaction's records are inserted
     * as one JDBC batch on its connection just before it commits, and a read through this repository inserts them
     * first.
     */
    @Override
    public OutboxRecord save(OutboxRecord record) {
        Objects.requireNonNull(record, "record must not be null");
        OutboxRecord.checkPayloadSize(record.getPayload(), maxPayloadBytes);
        return Objects.requireNonNull(transactions.execute(status -> {
            OutboxRecord stored = withTraceContext(record);
            if (TransactionSynchronizationManager.isSynchronizationActive()) {
                return pending().add(stored);
            }
            // a transaction manager that keeps no synchronizations: inserted at once, still in its transaction
            insert(List.of(stored));
            return stored;
        }));
    }

    private void insert(List<OutboxRecord> records) {
        entityManager.unwrap(Session.class).doWork(connection -> inserts.insert(connection, records));
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

    /**
     * The records of the current transaction not inserted yet: bound to it at its first record, with a
     * synchronization that inserts them and runs the commit hooks before it commits; a rollback runs neither.
     */
    private PendingRecords pending() {
        PendingRecords pending = (PendingRecords) TransactionSynchronizationManager.getResource(synchronizationKey);
        if (pending != null) {
            return pending;
        }
        PendingRecords created = new PendingRecords();
        TransactionSynchronizationManager.bindResource(synchronizationKey, created);
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            // a transaction started inside this one (REQUIRES_NEW) must collect records of its own
            @Override
            public void suspend() {
                TransactionSynchronizationManager.unbindResource(synchronizationKey);
            }

            @Override
            public void resume() {
                TransactionSynchronizationManager.bindResource(synchronizationKey, created);
            }

            @Override
            public void beforeCommit(boolean readOnly) {
                created.insert();
                hooks.beforeCommit(Collections.unmodifiableSet(created.partitions));
            }

            @Override
            public void afterCompletion(int status) {
                TransactionSynchronizationManager.unbindResourceIfPossible(synchronizationKey);
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

    /** Inserts the current transaction's pending records, so that a query in it sees them. */
    private void insertPending() {
        PendingRecords pending = (PendingRecords) TransactionSynchronizationManager.getResource(synchronizationKey);
        if (pending != null) {
            pending.insert();
        }
    }

    /** One transaction's records: those not inserted yet, and every partition written. Used by its thread only. */
    private final class PendingRecords {

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
            JpaOutboxRecordRepository.this.insert(batch);
        }
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        insertPending();
        return rows.findById(id).map(OutboxRecordEntity::toRecord);
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        insertPending();
        return rows.findByAggregateIdOrderBySequenceAsc(aggregateId).stream().map(OutboxRecordEntity::toRecord)
                .toList();
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        insertPending();
        return rows.findByStatusOrderBySequenceAsc(status, Limit.of(limit)).stream()
                .map(OutboxRecordEntity::toRecord).toList();
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        insertPending();
        return rows.countByStatus(status);
    }
}
