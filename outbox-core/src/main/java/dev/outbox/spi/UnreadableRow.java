package dev.outbox.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A row of the record table that cannot become an {@link dev.outbox.OutboxRecord}: written by SQL, a migration or an
 * older version with a value the library cannot place or read. A store reads rows value by value and reports such a
 * row with what it could read, so that one bad row never fails the read of the others; the processor then fails it on
 * its own ({@link RecordStore#failUnreadable}), or leaves it and reports it when it cannot.
 *
 * @param id the record id, null when it cannot be read (nothing can then be written to the row)
 * @param sequence {@code sequence_no}, null when it cannot be read
 * @param partition {@code partition_no} as stored (maybe not its aggregate's, maybe out of range), null when unreadable
 * @param aggregateId as stored, null when it cannot be read
 * @param handlerId as stored ({@code ""} for records addressed to no handler), null when it cannot be read
 * @param eventType as stored, null when it cannot be read
 * @param status the status text as stored (maybe none of {@link dev.outbox.OutboxRecordStatus}), null when unreadable
 * @param createdAt null when it cannot be read
 * @param lastError the stored error text, null when none or unreadable
 * @param problem what kind of thing is wrong, for metrics
 * @param detail what is wrong, naming the columns and their values
 * @since 0.1.0
 */
public record UnreadableRow(@Nullable String id, @Nullable Long sequence, @Nullable Integer partition,
        @Nullable String aggregateId, @Nullable String handlerId, @Nullable String eventType, @Nullable String status,
        @Nullable Instant createdAt, @Nullable String lastError, Problem problem, String detail) {

    public UnreadableRow {
        Objects.requireNonNull(problem, "problem");
        Objects.requireNonNull(detail, "detail");
    }

    /** The kinds of unreadable rows; the first one found names the row's problem. */
    public enum Problem {
        /** {@code partition_no} is not the partition its aggregate id hashes to, or is outside {@code 0..255}. */
        MISPLACED,
        /** {@code status} is none of the statuses the library knows. */
        UNKNOWN_STATUS,
        /** NULL or blank where a value is required (id, aggregate id, event type, payload, timestamps, …). */
        MISSING_VALUE,
        /** A value that cannot be read or decoded (a timestamp, the headers, a value too long). */
        UNREADABLE_VALUE
    }
}
