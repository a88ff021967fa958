package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.RecordHeaders;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import java.sql.Connection;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Inserts a transaction's records as one JDBC batch, on the connection that transaction holds: one round trip for
 * all of them where the driver batches, instead of an insert and a read-back of the sequence per record. Thread-safe.
 */
final class RecordInserts {

    private final DatabaseDialect dialect;
    private final String insert;
    /** Typed, so that a null is bound without asking the driver for the parameter's type (a round trip). */
    private final int timestampType;

    RecordInserts(SqlStatements sql) {
        this.dialect = sql.dialect();
        this.insert = sql.get("record.insert");
        this.timestampType = dialect.timestampValue(Instant.EPOCH) instanceof OffsetDateTime
                ? Types.TIMESTAMP_WITH_TIMEZONE : Types.TIMESTAMP;
    }

    /** Inserts {@code records} on {@code connection}, which stays open and in its transaction. */
    void insert(Connection connection, List<OutboxRecord> records) {
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(
                new SingleConnectionDataSource(connection, true));
        jdbc.batchUpdate(insert, records.stream().map(this::row).toArray(SqlParameterSource[]::new));
    }

    private SqlParameterSource row(OutboxRecord record) {
        String handlerId = record.getHandlerId();
        return new MapSqlParameterSource()
                .addValue("id", record.getId())
                .addValue("status", record.getStatus().name())
                .addValue("aggregateId", record.getAggregateId())
                .addValue("eventType", record.getEventType())
                .addValue("payload", record.getPayload())
                .addValue("partition", record.getPartition())
                .addValue("createdAt", dialect.timestampValue(record.getCreatedAt()))
                .addValue("completedAt", record.getCompletedAt() == null ? null
                        : dialect.timestampValue(record.getCompletedAt()), timestampType)
                .addValue("retryCount", record.getRetryCount())
                .addValue("nextRetryAt", dialect.timestampValue(record.getNextRetryAt()))
                .addValue("lastError", record.getLastError(), Types.VARCHAR)
                .addValue("traceContext", record.getTraceContext(), Types.VARCHAR)
                .addValue("handlerId", handlerId == null ? "" : handlerId)
                .addValue("headers", record.getHeaders().isEmpty() ? null
                        : RecordHeaders.encode(record.getHeaders()), Types.VARCHAR);
    }
}
