package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import java.sql.Connection;
import java.util.Objects;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * {@link OutboxRecordRepository} on plain JDBC, for applications without JPA (JdbcClient, JdbcTemplate, jOOQ,
 * MyBatis): {@link #save(OutboxRecord)} joins the Spring-managed transaction of the {@link DataSource}, so the record
 * commits or rolls back with the business change; the transaction's records are inserted as one JDBC batch on the
 * transaction's own connection just before it commits. Without a transaction, a save runs in one of its own.
 * {@link CommitHooks} run once around the commit of a transaction with records.
 *
 * <p>The transaction manager must manage {@code dataSource} (a {@code DataSourceTransactionManager}, or a
 * {@code JpaTransactionManager} over it): the records go through {@link DataSourceUtils}, on the connection bound to
 * the transaction.
 */
public final class JdbcOutboxRecordRepository extends SqlRecordRepository {

    private final DataSource dataSource;

    /**
     * @param dataSource the application's data source, the one its transactions run on
     * @param transactionManager the transaction manager of {@code dataSource}
     * @param sql the database's statements on the outbox tables
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param hooks called once around the commit of each transaction that saved records
     * @param observation captures the writer's trace context, stored with each record
     */
    public JdbcOutboxRecordRepository(DataSource dataSource, PlatformTransactionManager transactionManager,
            SqlStatements sql, int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        super(transactionManager, sql, maxPayloadBytes, hooks, observation);
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
    }

    @Override
    <T> T onTransactionConnection(Function<Connection, T> work) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return work.apply(connection);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }
}
