package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.spi.OutboxObservation;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.sql.DataSource;
import org.springframework.jdbc.core.RowMapper;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
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
public final class JdbcOutboxRecordRepository implements OutboxRecordRepository {

    private final DataSource dataSource;
    private final NamedParameterJdbcTemplate jdbc;
    private final RecordInserts inserts = new RecordInserts();
    private final TransactionRecords writes;
    private final RowMapper<OutboxRecord> rows;
    private final String findById;
    private final String findByAggregateId;
    private final String findByStatus;
    private final String countOfStatus;

    /**
     * @param dataSource the application's data source, the one its transactions run on
     * @param transactionManager the transaction manager of {@code dataSource}
     * @param dialect the database's SQL
     * @param maxPayloadBytes {@code outbox.max-payload-size} in bytes
     * @param hooks called once around the commit of each transaction that saved records
     * @param observation captures the writer's trace context, stored with each record
     */
    public JdbcOutboxRecordRepository(DataSource dataSource, PlatformTransactionManager transactionManager,
            DatabaseDialect dialect, int maxPayloadBytes, CommitHooks hooks, OutboxObservation observation) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.jdbc = new NamedParameterJdbcTemplate(dataSource);
        this.writes = new TransactionRecords(transactionManager, this::insert, hooks, maxPayloadBytes, observation);
        Objects.requireNonNull(dialect, "dialect");
        this.rows = (rs, rowNum) -> JdbcRecordStore.read(rs, dialect);
        SqlStatements sql = dialect.statements();
        String columns = sql.get("record.columns");
        this.findById = sql.get("record.findById").replace("{columns}", columns);
        this.findByAggregateId = sql.get("record.findByAggregateId").replace("{columns}", columns);
        this.findByStatus = sql.get("record.findByStatus").replace("{columns}", columns);
        this.countOfStatus = sql.get("record.countOfStatus");
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

    /** On the connection of the current transaction: the one the business change is written on. */
    private void insert(List<OutboxRecord> records) {
        Connection connection = DataSourceUtils.getConnection(dataSource);
        try {
            inserts.insert(connection, records);
        } catch (SQLException e) {
            // as a JdbcTemplate would: a duplicate id is a DataIntegrityViolationException, say
            throw Objects.requireNonNull(jdbc.getJdbcTemplate().getExceptionTranslator()
                    .translate("insert outbox records", null, e));
        } finally {
            DataSourceUtils.releaseConnection(connection, dataSource);
        }
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        writes.flush();
        return jdbc.query(findById, Map.of("id", Objects.requireNonNull(id, "id")), rows).stream().findFirst();
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        writes.flush();
        return jdbc.query(findByAggregateId, Map.of("aggregateId", Objects.requireNonNull(aggregateId,
                "aggregateId")), rows);
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        writes.flush();
        return jdbc.query(findByStatus.replace("{limit}", Integer.toString(limit)), Map.of("status", status.name()),
                rows);
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        writes.flush();
        Long count = jdbc.queryForObject(countOfStatus, Map.of("status", status.name()), Long.class);
        return count == null ? 0 : count;
    }
}
