package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.hibernate.Session;
import org.springframework.data.domain.Limit;
import org.springframework.data.jpa.repository.support.JpaRepositoryFactory;
import org.springframework.data.repository.Repository;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} on Spring Data JPA: {@link #save(OutboxRecord)} joins the current (business)
 * transaction, so the record commits or rolls back with it; the transaction's records are inserted as one JDBC batch
 * on its own connection just before it commits. Without a transaction, a save runs in one of its own.
 * {@link CommitHooks} run once around the commit of a transaction with records, so that processors can look for them
 * at once instead of at their next poll. Applications without JPA use {@link JdbcOutboxRecordRepository}.
 */
public final class JpaOutboxRecordRepository implements OutboxRecordRepository {

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
    private final TransactionRecords writes;

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
        this.entityManager = Objects.requireNonNull(entityManager, "entityManager");
        this.rows = new JpaRepositoryFactory(entityManager).getRepository(OutboxRecordRows.class);
        this.writes = new TransactionRecords(transactionManager, this::insert, hooks, maxPayloadBytes, observation);
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
        return writes.save(record);
    }

    private void insert(List<OutboxRecord> records) {
        entityManager.unwrap(Session.class).doWork(connection -> inserts.insert(connection, records));
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        writes.flush();
        return rows.findById(id).map(OutboxRecordEntity::toRecord);
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        writes.flush();
        return rows.findByAggregateIdOrderBySequenceAsc(aggregateId).stream().map(OutboxRecordEntity::toRecord)
                .toList();
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        writes.flush();
        return rows.findByStatusOrderBySequenceAsc(status, Limit.of(limit)).stream()
                .map(OutboxRecordEntity::toRecord).toList();
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        writes.flush();
        return rows.countByStatus(status);
    }
}
