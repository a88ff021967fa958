package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.RecordHeaders;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.UnreadableRow;
import dev.outbox.spi.UnreadableRow.Problem;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.ResultSetExtractor;

/**
 * Reads rows of {@code record.columns} value by value, tolerant of bad values: a row written by SQL, a migration or an
 * older version that cannot become an {@link OutboxRecord} (a partition that is not its aggregate's, an unknown status,
 * NULL or blank where a value is required, a value that cannot be read) is reported as an {@link UnreadableRow} naming
 * what is wrong, and the rows around it are read as usual. One bad row must not fail the read of every other.
 */
final class RecordRows {

    private static final int MAX_QUOTED = 100;
    /** The statuses by their stored name, looked up once per row. */
    private static final Map<String, OutboxRecordStatus> STATUSES_BY_NAME = Arrays.stream(OutboxRecordStatus.values())
            .collect(Collectors.toUnmodifiableMap(OutboxRecordStatus::name, status -> status));
    private static final String STATUS_NAMES = Arrays.toString(OutboxRecordStatus.values());

    private RecordRows() {
    }

    /** Every row of the result, readable or not, each kind in the order read. */
    static ResultSetExtractor<FetchedRows> extractor(DatabaseDialect dialect) {
        return rs -> {
            List<OutboxRecord> records = new ArrayList<>();
            List<UnreadableRow> unreadable = new ArrayList<>();
            while (rs.next()) {
                Object row = read(rs, dialect);
                if (row instanceof OutboxRecord record) {
                    records.add(record);
                } else {
                    unreadable.add((UnreadableRow) row);
                }
            }
            return new FetchedRows(records, unreadable);
        };
    }

    /** The current row as an {@link OutboxRecord}, or as an {@link UnreadableRow} when it cannot be one. */
    static Object read(ResultSet rs, DatabaseDialect dialect) {
        Values v = new Values(rs, dialect);
        String id = v.text("id");
        Long sequence = v.number("sequence_no") instanceof Long n ? n : null;
        String status = v.text("status");
        String aggregateId = v.text("aggregate_id");
        String eventType = v.text("event_type");
        String payload = v.text("payload");
        Integer partition = v.number("partition_no") instanceof Long n ? Math.toIntExact(n) : null;
        Instant createdAt = v.timestamp("created_at");
        Instant completedAt = v.timestamp("completed_at");
        Long retryCount = v.number("retry_count") instanceof Long n ? n : null;
        Instant nextRetryAt = v.timestamp("next_retry_at");
        String lastError = v.text("last_error");
        String traceContext = v.text("trace_context");
        String handlerId = v.text("handler_id");
        String headers = v.text("headers");
        Instant firstDeferredAt = v.timestamp("first_deferred_at");

        v.required("id", id);
        v.required("sequence_no", sequence);
        v.required("aggregate_id", aggregateId);
        v.required("event_type", eventType);
        v.required("payload", payload);
        v.required("partition_no", partition);
        v.required("created_at", createdAt);
        v.required("retry_count", retryCount);
        v.required("next_retry_at", nextRetryAt);
        OutboxRecordStatus knownStatus = knownStatus(status);
        if (status == null) {
            v.required("status", null);
        } else if (knownStatus == null) {
            v.problem(Problem.UNKNOWN_STATUS, "status is " + quote(status) + ", none of " + STATUS_NAMES);
        }
        if (partition != null && (partition < 0 || partition >= PartitionHasher.PARTITION_COUNT)) {
            v.problem(Problem.MISPLACED, "partition_no is " + partition + ", outside 0.."
                    + (PartitionHasher.PARTITION_COUNT - 1));
        } else if (partition != null && aggregateId != null && !aggregateId.isBlank()
                && partition != PartitionHasher.partitionOf(aggregateId)) {
            v.problem(Problem.MISPLACED, "partition_no is " + partition + " but aggregate_id " + quote(aggregateId)
                    + " hashes to partition " + PartitionHasher.partitionOf(aggregateId));
        }
        Map<String, String> decodedHeaders = Map.of();
        try {
            decodedHeaders = RecordHeaders.decodeStrictly(headers);
        } catch (IllegalArgumentException e) {
            v.problem(Problem.UNREADABLE_VALUE, "headers cannot be read: " + e.getMessage());
        }
        if (v.problem == null) {
            try {
                return OutboxRecord.restore().id(id).sequence(sequence).status(knownStatus).aggregateId(aggregateId)
                        .eventType(eventType).payload(payload).partition(partition).createdAt(createdAt)
                        .completedAt(completedAt).retryCount(Math.toIntExact(retryCount)).nextRetryAt(nextRetryAt)
                        .lastError(lastError).traceContext(traceContext).headers(decodedHeaders).handlerId(handlerId)
                        .firstDeferredAt(firstDeferredAt).build();
            } catch (RuntimeException e) {
                // The record's own rules: a value too long, a negative retry count, text that is not UTF-16, …
                v.problem(Problem.UNREADABLE_VALUE, String.valueOf(e.getMessage()));
            }
        }
        return new UnreadableRow(id, sequence, partition, aggregateId, handlerId, eventType, status, createdAt,
                lastError, v.problem, String.join("; ", v.details));
    }

    /** The status of this stored name, exactly as stored (no case folding, no trimming); null for none. */
    static @Nullable OutboxRecordStatus knownStatus(@Nullable String stored) {
        return stored == null ? null : STATUSES_BY_NAME.get(stored);
    }

    /** A value as a quoted, bounded text, control characters escaped: it is written to logs and error texts. */
    static String quote(String value) {
        StringBuilder quoted = new StringBuilder("'");
        value.codePoints().limit(MAX_QUOTED).forEach(c -> {
            if (Character.isISOControl(c) || Character.getType(c) == Character.SURROGATE) {
                quoted.append(String.format("\\u%04x", c));
            } else {
                quoted.appendCodePoint(c);
            }
        });
        quoted.append('\'');
        int length = value.codePointCount(0, value.length());
        return length > MAX_QUOTED ? quoted + "… (" + length + " characters)" : quoted.toString();
    }

    /** The row's values, each read on its own; what goes wrong is collected, the first problem names the row's. */
    private static final class Values {
        private final ResultSet rs;
        private final DatabaseDialect dialect;
        private final List<String> details = new ArrayList<>();
        private @Nullable Problem problem;

        Values(ResultSet rs, DatabaseDialect dialect) {
            this.rs = rs;
            this.dialect = dialect;
        }

        @Nullable String text(String column) {
            try {
                return rs.getString(column);
            } catch (SQLException | RuntimeException e) {
                return unreadable(column, e);
            }
        }

        /** A whole number as a Long, null when NULL or unreadable. */
        @Nullable Object number(String column) {
            try {
                long value = rs.getLong(column);
                return rs.wasNull() ? null : value;
            } catch (SQLException | RuntimeException e) {
                return unreadable(column, e);
            }
        }

        @Nullable Instant timestamp(String column) {
            try {
                return dialect.readTimestamp(rs, column);
            } catch (SQLException | RuntimeException e) {
                return unreadable(column, e);
            }
        }

        void required(String column, @Nullable Object value) {
            if (value == null) {
                if (details.stream().noneMatch(d -> d.startsWith(column + " cannot be read"))) {
                    problem(Problem.MISSING_VALUE, column + " is NULL");
                }
            } else if (value instanceof String text && text.isBlank()) {
                problem(Problem.MISSING_VALUE, column + " is blank (" + quote(text) + ")");
            }
        }

        void problem(Problem kind, String detail) {
            if (problem == null) {
                problem = kind;
            }
            details.add(detail);
        }

        private <T> @Nullable T unreadable(String column, Exception e) {
            problem(Problem.UNREADABLE_VALUE, column + " cannot be read: " + e.getMessage());
            return null;
        }
    }
}
