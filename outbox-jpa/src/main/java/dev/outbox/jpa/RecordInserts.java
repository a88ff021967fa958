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

    private volatile @Nullable Database database;

    /** What the inserts need to know of the database, worked out once. */
    private record Database(DatabaseDialect dialect, String sql, int timestampType) {

        static Database of(DatabaseDialect dialect) {
            // typed, so that a null is bound without asking the driver for the parameter's type (a round trip)
            int timestampType = dialect.timestampValue(Instant.EPOCH) instanceof OffsetDateTime
                    ? Types.TIMESTAMP_WITH_TIMEZONE : Types.TIMESTAMP;
            return new Database(dialect, dialect.statements().get("record.insert"), timestampType);
        }
    }

    /** Inserts {@code records} on {@code connection}, which stays open and in its transaction. */
    void insert(Connection connection, List<OutboxRecord> records) throws SQLException {
        Database known = databaseOf(connection);
        NamedParameterJdbcTemplate jdbc = new NamedParameterJdbcTemplate(
                new SingleConnectionDataSource(connection, true));
        SqlParameterSource[] rows = records.stream().map(record -> row(known, record))
                .toArray(SqlParameterSource[]::new);
        jdbc.batchUpdate(known.sql(), rows);
    }

    private Database databaseOf(Connection connection) throws SQLException {
        Database known = database;
        if (known == null) {
            known = Database.of(DatabaseDialect.fromProductName(connection.getMetaData().getDatabaseProductName()));
            database = known;
        }
        return known;
    }

    private static SqlParameterSource row(Database database, OutboxRecord record) {
        DatabaseDialect dialect = database.dialect();
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
                        : dialect.timestampValue(record.getCompletedAt()), database.timestampType())
                .addValue("retryCount", record.getRetryCount())
                .addValue("nextRetryAt", dialect.timestampValue(record.getNextRetryAt()))
                .addValue("lastError", record.getLastError(), Types.VARCHAR)
                .addValue("traceContext", record.getTraceContext(), Types.VARCHAR)
                .addValue("handlerId", handlerId == null ? "" : handlerId)
                .addValue("headers", record.getHeaders().isEmpty() ? null
                        : RecordHeaders.encode(record.getHeaders()), Types.VARCHAR);
    }
}
