package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.jpa.dialect.SqlStatements;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.RowMapper;

/**
 * {@link RecordStore} in plain SQL over JDBC. Every method is a single statement, atomic on its own, so it needs no
 * surrounding transaction; statements come from the {@link DatabaseDialect}'s SQL resources.
 *
 * <p>Status writes of a record delivered under a partition epoch ({@link OutboxRecord#getEpoch()} above 0) are fenced:
 * they take effect only while this instance still owns the partition under that epoch in {@code outbox_partition}.
 */
public final class JdbcRecordStore implements RecordStore, RecordStatistics, RecordPurge, RecordAdministration {

    private final JdbcTemplate jdbc;
    private final DatabaseDialect dialect;
    private final String findDueHeadOfAggregate;
    private final String findDueAny;
    private final String instanceId;
    private final Statement markCompleted;
    private final Statement deleteCompleted;
    private final Statement scheduleRetry;
    private final Statement markFailed;
    private final String purge;
    private final String findFailed;
    private final String retryFailed;
    private final String retryAllFailed;
    private final String skipFailed;
    private final String deleteFailed;
    private final String countByStatus;
    private final String pendingByPartition;
    private final @Nullable String markCompletedBulk;
    private final @Nullable String deleteCompletedBulk;
    private final RowMapper<OutboxRecord> rowMapper = this::mapRow;

    /**
     * @param instanceId the id under which this instance owns partitions, used to fence status writes
     */
    public JdbcRecordStore(DataSource dataSource, DatabaseDialect dialect, String instanceId) {
        this.jdbc = new JdbcTemplate(Objects.requireNonNull(dataSource, "dataSource"));
        this.dialect = Objects.requireNonNull(dialect, "dialect");
        this.instanceId = Objects.requireNonNull(instanceId, "instanceId");
        SqlStatements sql = dialect.statements();
        String columns = sql.get("record.columns");
        this.findDueHeadOfAggregate = sql.get("record.findDue.headOfAggregate").replace("{columns}", columns);
        this.findDueAny = sql.get("record.findDue.any").replace("{columns}", columns);
        String fence = sql.get("record.fence");
        this.markCompleted = Statement.of(sql.get("record.markCompleted"), fence);
        this.deleteCompleted = Statement.of(sql.get("record.deleteCompleted"), fence);
        this.scheduleRetry = Statement.of(sql.get("record.scheduleRetry"), fence);
        this.markFailed = Statement.of(sql.get("record.markFailed"), fence);
        this.purge = sql.get("record.purge");
        this.findFailed = sql.get("admin.findFailed").replace("{columns}", columns);
        this.retryFailed = sql.get("admin.retryFailed");
        this.retryAllFailed = sql.get("admin.retryAllFailed");
        this.skipFailed = sql.get("admin.skipFailed");
        this.deleteFailed = sql.get("admin.deleteFailed");
        this.countByStatus = sql.get("record.countByStatus");
        this.pendingByPartition = sql.get("record.pendingByPartition");
        this.markCompletedBulk = sql.find("record.markCompleted.bulk").orElse(null);
        this.deleteCompletedBulk = sql.find("record.deleteCompleted.bulk").orElse(null);
    }

    @Override
    public List<OutboxRecord> findDue(DueRecordsQuery query) {
        Object now = dialect.timestampValue(query.now());
        String sql = (query.headOfAggregateOnly() ? findDueHeadOfAggregate : findDueAny)
                .replace("{partitionFilter}", partitionFilter(query.partitions()))
                .replace("{limit}", Integer.toString(query.limit()));
        return query.headOfAggregateOnly() ? jdbc.query(sql, rowMapper, now, now) : jdbc.query(sql, rowMapper, now);
    }

    @Override
    public List<OutboxRecord> findFailed(FailedRecordFilter filter, int limit) {
        List<Object> parameters = new ArrayList<>();
        String query = findFailed.replace("{filter}", failedFilter(filter, parameters))
                .replace("{limit}", Integer.toString(limit));
        return jdbc.query(query, rowMapper, parameters.toArray());
    }

    @Override
    public boolean retryFailed(String id, Instant now) {
        return jdbc.update(retryFailed, dialect.timestampValue(now), id) == 1;
    }

    @Override
    public int retryAllFailed(FailedRecordFilter filter, Instant now) {
        List<Object> parameters = new ArrayList<>();
        parameters.add(dialect.timestampValue(now));
        String update = retryAllFailed.replace("{filter}", failedFilter(filter, parameters));
        return jdbc.update(update, parameters.toArray());
    }

    @Override
    public boolean skipFailed(String id, Instant now) {
        return jdbc.update(skipFailed, dialect.timestampValue(now), id) == 1;
    }

    @Override
    public boolean deleteFailed(String id) {
        return jdbc.update(deleteFailed, id) == 1;
    }

    /** The criteria as fixed SQL fragments with parameters, added to {@code parameters} in order. */
    private String failedFilter(FailedRecordFilter filter, List<Object> parameters) {
        StringBuilder where = new StringBuilder();
        if (filter.eventType() != null) {
            where.append(" AND r.event_type = ?");
            parameters.add(filter.eventType());
        }
        if (filter.aggregateId() != null) {
            where.append(" AND r.aggregate_id = ?");
            parameters.add(filter.aggregateId());
        }
        if (filter.handlerId() != null) {
            where.append(" AND r.handler_id = ?");
            parameters.add(filter.handlerId());
        }
        if (filter.createdFrom() != null) {
            where.append(" AND r.created_at >= ?");
            parameters.add(dialect.timestampValue(filter.createdFrom()));
        }
        if (filter.createdBefore() != null) {
            where.append(" AND r.created_at < ?");
            parameters.add(dialect.timestampValue(filter.createdBefore()));
        }
        return where.toString();
    }

    @Override
    public int purge(OwnedPartitions partitions, OutboxRecordStatus status, Instant createdBefore, int limit) {
        if (status == OutboxRecordStatus.NEW) {
            throw new IllegalArgumentException("NEW records are never purged");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1 but was " + limit);
        }
        String sql = purge.replace("{partitionFilter}", partitionFilter(partitions))
                .replace("{limit}", Integer.toString(limit));
        return jdbc.update(sql, status.name(), dialect.timestampValue(createdBefore));
    }

    @Override
    public Map<OutboxRecordStatus, Long> countByStatus() {
        Map<OutboxRecordStatus, Long> counts = new EnumMap<>(OutboxRecordStatus.class);
        jdbc.query(countByStatus, (ResultSet row) -> {
            counts.put(OutboxRecordStatus.valueOf(row.getString("status")), row.getLong("record_count"));
        });
        return counts;
    }

    @Override
    public List<PartitionBacklog> pendingByPartition() {
        return jdbc.query(pendingByPartition, (row, rowNum) -> new PartitionBacklog(row.getInt("partition_no"),
                row.getLong("pending"), Objects.requireNonNull(dialect.readTimestamp(row, "oldest_created_at"))));
    }

    @Override
    public boolean markCompleted(OutboxRecord record, Instant completedAt) {
        return update(markCompleted, record, dialect.timestampValue(completedAt), record.getId(),
                record.getRetryCount());
    }

    @Override
    public List<OutboxRecord> markCompleted(List<OutboxRecord> records, Instant completedAt) {
        Object at = dialect.timestampValue(completedAt);
        if (markCompletedBulk != null && records.size() > 1) {
            return bulk(markCompletedBulk, at, records);
        }
        return batch(markCompleted, records, record -> new Object[] {at, record.getId(), record.getRetryCount()});
    }

    @Override
    public boolean deleteCompleted(OutboxRecord record) {
        return update(deleteCompleted, record, record.getId(), record.getRetryCount());
    }

    @Override
    public List<OutboxRecord> deleteCompleted(List<OutboxRecord> records) {
        if (deleteCompletedBulk != null && records.size() > 1) {
            return bulk(deleteCompletedBulk, null, records);
        }
        return batch(deleteCompleted, records, record -> new Object[] {record.getId(), record.getRetryCount()});
    }

    @Override
    public boolean scheduleRetry(OutboxRecord record, int retryCount, Instant nextRetryAt, String lastError) {
        return update(scheduleRetry, record, retryCount, dialect.timestampValue(nextRetryAt), lastError,
                record.getId(), record.getRetryCount());
    }

    @Override
    public boolean markFailed(OutboxRecord record, int retryCount, String lastError) {
        return update(markFailed, record, retryCount, lastError, record.getId(), record.getRetryCount());
    }

    /** Runs a status write, fenced on the record's partition epoch when it has one. */
    private boolean update(Statement statement, OutboxRecord record, Object... parameters) {
        return jdbc.update(statement.sqlFor(record), withFence(record, parameters)) == 1;
    }

    /**
     * Runs one status write per record as a single JDBC batch (one round trip); returns the records it did not change.
     * A driver that reports {@link java.sql.Statement#SUCCESS_NO_INFO} is taken at its word.
     */
    private List<OutboxRecord> batch(Statement statement, List<OutboxRecord> records,
            Function<OutboxRecord, Object[]> parameters) {
        if (records.isEmpty()) {
            return List.of();
        }
        if (records.size() == 1) {
            return update(statement, records.get(0), parameters.apply(records.get(0))) ? List.of() : records;
        }
        // Fenced or not by the first record: one processor delivers either every record under an epoch or none.
        String sql = statement.sqlFor(records.get(0));
        List<Object[]> rows = records.stream().map(record -> withFence(record, parameters.apply(record))).toList();
        int[] counts = Objects.requireNonNull(jdbc.execute((Connection connection) -> inOneTransaction(connection,
                sql, rows)));
        List<OutboxRecord> notChanged = new ArrayList<>();
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] != 1 && counts[i] != java.sql.Statement.SUCCESS_NO_INFO) {
                notChanged.add(records.get(i));
            }
        }
        return notChanged;
    }

    /**
     * Runs a set-based status write over arrays of the records' keys, fenced row by row (epoch 0: not fenced); returns
     * the records it did not change.
     */
    private List<OutboxRecord> bulk(String sql, @Nullable Object completedAt, List<OutboxRecord> records) {
        Set<String> changed = new HashSet<>(records.size());
        jdbc.query((Connection connection) -> {
            PreparedStatement statement = connection.prepareStatement(sql);
            int index = 1;
            if (completedAt != null) {
                statement.setObject(index++, completedAt);
            }
            statement.setArray(index++, connection.createArrayOf("varchar",
                    records.stream().map(OutboxRecord::getId).toArray()));
            statement.setArray(index++, connection.createArrayOf("int4",
                    records.stream().map(OutboxRecord::getRetryCount).toArray()));
            statement.setArray(index++, connection.createArrayOf("int4",
                    records.stream().map(OutboxRecord::getPartition).toArray()));
            statement.setArray(index++, connection.createArrayOf("int8",
                    records.stream().map(OutboxRecord::getEpoch).toArray()));
            statement.setString(index, instanceId);
            return statement;
        }, (ResultSet row) -> {
            changed.add(row.getString(1));
        });
        return records.stream().filter(record -> !changed.contains(record.getId())).toList();
    }

    /** One commit for the whole batch, not one per statement: the commits, not the statements, are the cost. */
    private static int[] inOneTransaction(Connection connection, String sql, List<Object[]> rows)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        if (autoCommit) {
            connection.setAutoCommit(false);
        }
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            for (Object[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    statement.setObject(i + 1, row[i]);
                }
                statement.addBatch();
            }
            int[] counts = statement.executeBatch();
            if (autoCommit) {
                connection.commit();
            }
            return counts;
        } catch (SQLException | RuntimeException e) {
            if (autoCommit) {
                connection.rollback();
            }
            throw e;
        } finally {
            if (autoCommit) {
                connection.setAutoCommit(true);
            }
        }
    }

    private Object[] withFence(OutboxRecord record, Object[] parameters) {
        if (record.getEpoch() == 0) {
            return parameters;
        }
        Object[] fenced = Arrays.copyOf(parameters, parameters.length + 3);
        fenced[parameters.length] = record.getPartition();
        fenced[parameters.length + 1] = instanceId;
        fenced[parameters.length + 2] = record.getEpoch();
        return fenced;
    }

    /** A status write with and without the ownership fence. */
    private record Statement(String unfenced, String fenced) {
        static Statement of(String sql, String fence) {
            return new Statement(sql.replace("{fence}", ""), sql.replace("{fence}", fence));
        }

        String sqlFor(OutboxRecord record) {
            return record.getEpoch() == 0 ? unfenced : fenced;
        }
    }

    /** Built from integers only, so it cannot carry SQL. Empty when every partition is owned. */
    private static String partitionFilter(OwnedPartitions partitions) {
        if (partitions.isAll()) {
            return "";
        }
        return partitions.stream().mapToObj(Integer::toString)
                .collect(Collectors.joining(",", "AND r.partition_no IN (", ")"));
    }

    private OutboxRecord mapRow(ResultSet rs, int rowNum) throws SQLException {
        return OutboxRecord.restore()
                .id(rs.getString("id"))
                .sequence(rs.getLong("sequence_no"))
                .status(OutboxRecordStatus.valueOf(rs.getString("status")))
                .aggregateId(rs.getString("aggregate_id"))
                .eventType(rs.getString("event_type"))
                .payload(rs.getString("payload"))
                .partition(rs.getInt("partition_no"))
                .createdAt(dialect.readTimestamp(rs, "created_at"))
                .completedAt(dialect.readTimestamp(rs, "completed_at"))
                .retryCount(rs.getInt("retry_count"))
                .nextRetryAt(dialect.readTimestamp(rs, "next_retry_at"))
                .lastError(rs.getString("last_error"))
                .traceContext(rs.getString("trace_context"))
                .handlerId(rs.getString("handler_id"))
                .build();
    }
}
