package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import java.sql.Connection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import javax.sql.DataSource;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceUtils;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link OutboxRecordRepository} on plain JDBC, for applications without JPA (JdbcClient, JdbcTemplate, jOOQ,
 * MyBatis): {@link #save(OutboxRecord)} joins the transaction bound to the {@link DataSource}, whichever transaction
 * manager began it, so the record commits or rolls back with the business change; the transaction's records are
 * inserted as one JDBC batch on the transaction's own connection just before it commits. Without any transaction, a
 * save runs in one of its own; with only another resource's transaction open, it is refused. {@link CommitHooks} run
 * once around the commit of a transaction with records. Reads through it see the transaction's records not yet
 * inserted. JPA applications use {@code JpaOutboxRecordRepository} of outbox-jpa, which is this repository on the
 * persistence unit's DataSource.
 */
public class JdbcOutboxRecordRepository implements OutboxRecordRepository {

    private final DataSource dataSource;
    private final TransactionJoin writes;
    private final TransactionTemplate reads;
    private final RecordInserts inserts;
    private final RowMapper<OutboxRecord> rows;
    private final String findById;
    private final String findByAggregateId;
    private final String findByStatus;
    private final String countOfStatus;

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
        Objects.requireNonNull(sql, "sql");
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.inserts = new RecordInserts(sql);
        this.writes = new TransactionJoin(dataSource, transactionManager,
                records -> onTransactionConnection(connection -> {
                    inserts.insert(connection, records);
                    return null;
                }), hooks, maxPayloadBytes, observation);
        this.reads = new TransactionTemplate(transactionManager);
        this.reads.setReadOnly(true);
        this.rows = (rs, rowNum) -> JdbcRecordStore.read(rs, sql.dialect());
        String columns = sql.get("record.columns");
        this.findById = sql.get("record.findById").replace("{columns}", columns);
        this.findByAggregateId = sql.get("record.findByAggregateId").replace("{columns}", columns);
        this.findByStatus = sql.get("record.findByStatus").replace("{columns}", columns);
        this.countOfStatus = sql.get("record.countOfStatus");
    }

    /** Runs {@code work} on the connection of the transaction bound to the DataSource, which stays open and in it. */
    private <T> T onTransactionConnection(Function<Connection, T> work) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            return work.apply(connection);
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    /**
     * Joins {@code record} to the transaction bound to the outbox's DataSource, or saves it in a transaction of its
     * own when no transaction is open; refuses it when only another resource's transaction is open, or the
     * transaction is read-only or over (see {@link TransactionJoin}). The transaction's records are inserted as one
     * JDBC batch on its connection just before it commits, and a read through this repository inserts them first.
     */
    @Override
    public OutboxRecord save(OutboxRecord record) {
        return writes.save(record);
    }

    @Override
    public boolean isTransactionActive() {
        return writes.isTransactionActive();
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        Objects.requireNonNull(id, "id");
        return query(jdbc -> jdbc.query(findById, Map.of("id", id), rows)).stream().findFirst();
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        return query(jdbc -> jdbc.query(findByAggregateId, Map.of("aggregateId", aggregateId), rows));
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        String statement = findByStatus.replace("{limit}", Integer.toString(limit));
        return query(jdbc -> jdbc.query(statement, Map.of("status", status.name()), rows));
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        Long count = query(jdbc -> jdbc.queryForObject(countOfStatus, Map.of("status", status.name()), Long.class));
        return count == null ? 0 : count;
    }

    /**
     * In the transaction bound to the DataSource, after its pending records; without one, in a read-only transaction
     * of its own.
     */
    private <T> T query(Function<NamedParameterJdbcTemplate, T> read) {
        if (writes.isTransactionActive()) {
            writes.flush();
            return onConnection(read);
        }
        return reads.execute(status -> onConnection(read));
    }

    private <T> T onConnection(Function<NamedParameterJdbcTemplate, T> read) {
        return onTransactionConnection(connection -> read.apply(
                new NamedParameterJdbcTemplate(new SingleConnectionDataSource(connection, true))));
    }
}
