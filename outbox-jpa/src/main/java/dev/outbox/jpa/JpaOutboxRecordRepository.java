package dev.outbox.jpa;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import jakarta.persistence.EntityManager;
import jakarta.persistence.EntityManagerFactory;
import java.sql.Connection;
import java.util.Objects;
import java.util.function.Function;
import org.hibernate.Session;
import org.springframework.orm.jpa.SharedEntityManagerCreator;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} for JPA applications (Hibernate): records are written and read with the outbox's
 * SQL on the JDBC connection of the entity manager's current transaction, so they commit or roll back with the
 * entities; the transaction's records are inserted as one JDBC batch just before it commits. Without a transaction, a
 * save runs in one of its own. {@link CommitHooks} run once around the commit of a transaction with records. The
 * outbox maps no entity: the persistence unit needs no {@code @EntityScan} for it, and Hibernate's schema tooling
 * never sees the outbox tables. Applications without JPA use {@link JdbcOutboxRecordRepository}.
 */
public final class JpaOutboxRecordRepository extends SqlRecordRepository {

    private final EntityManager entityManager;

    /**
     * @param entityManager a transaction-bound shared entity manager (as Spring injects with
     *     {@code @PersistenceContext} or {@code SharedEntityManagerCreator})
     * @param transactionManager the application's transaction manager
     * @param sql the database's statements on the outbox tables
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param hooks called once around the commit of each transaction that saved records
     * @param observation captures the writer's trace context, stored with each record
     */
    public JpaOutboxRecordRepository(EntityManager entityManager, PlatformTransactionManager transactionManager,
            SqlStatements sql, int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        super(transactionManager, sql, maxPayloadBytes, hooks, observation);
        this.entityManager = Objects.requireNonNull(entityManager, "entityManager");
    }

    /** A repository on a shared entity manager of {@code entityManagerFactory}. */
    public static JpaOutboxRecordRepository create(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, SqlStatements sql, int maxPayloadBytes, CommitHooks hooks,
            OutboxObservation observation) {
        return new JpaOutboxRecordRepository(
                SharedEntityManagerCreator.createSharedEntityManager(entityManagerFactory), transactionManager, sql,
                maxPayloadBytes, hooks, observation);
    }

    @Override
    <T> T onTransactionConnection(Function<Connection, T> work) {
        return entityManager.unwrap(Session.class).doReturningWork(work::apply);
    }
}
