package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.RecordHeaders;
import dev.outbox.jpa.dialect.DatabaseDialect;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Inserts a transaction's records as one JDBC batch, on the connection that transaction holds: one round trip for
 * all of them where the driver batches, instead of an insert and a read-back of the sequence per record. The database
 * is recognised from the first connection. Thread-safe.
 */
final class RecordInserts {

    private volatile @Nullable DatabaseDialect dialect;

    /** Inserts {@code records} on {@code connection}, which stays open and in its transaction. */
    void insert(Connection connection, List<OutboxRecord> records) throws SQLException {
        DatabaseDialect database = dialectOf(connection);
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(
                new SingleConnectionDataSource(connection, true));
        SqlParameterSource[] rows = records.stream().map(record -> row(database, record))
                .toArray(SqlParameterSource[]::new);
        jdbc.batchUpdate(database.statements().get("record.insert"), rows);
    }

    private DatabaseDialect dialectOf(Connection connection) throws SQLException {
        DatabaseDialect known = dialect;
        if (known == null) {
            known = DatabaseDialect.fromProductName(connection.getMetaData().getDatabaseProductName());
            dialect = known;
        }
        return known;
    }

    /** Typed, so that a null is bound without asking the driver for the parameter's type (a round trip). */
    private static int timestampType(DatabaseDialect database) {
        return database.timestampValue(Instant.EPOCH) instanceof OffsetDateTime ? Types.TIMESTAMP_WITH_TIMEZONE
                : Types.TIMESTAMP;
    }

    private static SqlParameterSource row(DatabaseDialect database, OutboxRecord record) {
        String handlerId = record.getHandlerId();
        return new MapSqlParameterSource()
                .addValue("id", record.getId())
                .addValue("status", record.getStatus().name())
                .addValue("aggregateId", record.getAggregateId())
                .addValue("eventType", record.getEventType())
                .addValue("payload", record.getPayload())
                .addValue("partition", record.getPartition())
                .addValue("createdAt", database.timestampValue(record.getCreatedAt()))
                .addValue("completedAt", record.getCompletedAt() == null ? null
                        : database.timestampValue(record.getCompletedAt()), timestampType(database))
                .addValue("retryCount", record.getRetryCount())
                .addValue("nextRetryAt", database.timestampValue(record.getNextRetryAt()))
                .addValue("lastError", record.getLastError(), Types.VARCHAR)
                .addValue("traceContext", record.getTraceContext(), Types.VARCHAR)
                .addValue("handlerId", handlerId == null ? "" : handlerId)
                .addValue("headers", record.getHeaders().isEmpty() ? null
                        : RecordHeaders.encode(record.getHeaders()), Types.VARCHAR);
    }
}
