package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jpa.dialect.SqlStatements;
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
 * The write repositories' SQL, on the connection of the transaction bound to the outbox's {@link DataSource}: saves
 * join that transaction ({@link TransactionJoin}) and are inserted as one batch before it commits; reads insert the
 * transaction's pending records first, so they see them.
 */
abstract class SqlRecordRepository implements OutboxRecordRepository {

    private final DataSource dataSource;
    private final TransactionJoin writes;
    private final TransactionTemplate reads;
    private final RecordInserts inserts;
    private final RowMapper<OutboxRecord> rows;
    private final String findById;
    private final String findByAggregateId;
    private final String findByStatus;
    private final String countOfStatus;

    SqlRecordRepository(DataSource dataSource, PlatformTransactionManager transactionManager, SqlStatements sql,
            int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
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
    public final OutboxRecord save(OutboxRecord record) {
        return writes.save(record);
    }

    @Override
    public final boolean isTransactionActive() {
        return writes.isTransactionActive();
    }

    @Override
    public final Optional<OutboxRecord> findById(String id) {
        Objects.requireNonNull(id, "id");
        return query(jdbc -> jdbc.query(findById, Map.of("id", id), rows)).stream().findFirst();
    }

    @Override
    public final List<OutboxRecord> findByAggregateId(String aggregateId) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        return query(jdbc -> jdbc.query(findByAggregateId, Map.of("aggregateId", aggregateId), rows));
    }

    @Override
    public final List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        String statement = findByStatus.replace("{limit}", Integer.toString(limit));
        return query(jdbc -> jdbc.query(statement, Map.of("status", status.name()), rows));
    }

    @Override
    public final long countByStatus(OutboxRecordStatus status) {
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
