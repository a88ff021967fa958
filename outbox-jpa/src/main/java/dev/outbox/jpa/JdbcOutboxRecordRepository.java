package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import javax.sql.DataSource;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} on plain JDBC, for applications without JPA (JdbcClient, JdbcTemplate, jOOQ,
 * MyBatis): {@link #save(OutboxRecord)} joins the transaction bound to the {@link DataSource}, whichever transaction
 * manager began it, so the record commits or rolls back with the business change; the transaction's records are
 * inserted as one JDBC batch on the transaction's own connection just before it commits. Without any transaction, a
 * save runs in one of its own; with only another resource's transaction open, it is refused. {@link CommitHooks} run
 * once around the commit of a transaction with records.
 */
public final class JdbcOutboxRecordRepository extends SqlRecordRepository {

    /**
     * @param dataSource the data source the application's transactions run on, and the outbox's tables live in
     * @param transactionManager a transaction manager of {@code dataSource}, for saves made outside any transaction
     * @param sql the database's statements on the outbox tables
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param hooks called once around the commit of each transaction that saved records
     * @param observation captures the writer's trace context, stored with each record
     */
    public JdbcOutboxRecordRepository(DataSource dataSource, PlatformTransactionManager transactionManager,
            SqlStatements sql, int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        super(dataSource, transactionManager, sql, maxPayloadBytes, hooks, observation);
    }
}
