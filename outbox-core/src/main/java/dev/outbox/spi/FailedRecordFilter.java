package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/**
 * Which FAILED records an operator means; every criterion is optional and they combine with AND. Immutable: the
 * {@code with…} methods return a new filter.
 *
 * <p>No column tells when a record failed; its {@code next_retry_at} ({@link OutboxRecord#getNextRetryAt()}), which a
 * failure leaves as it was, tells when its last attempt fell due: the attempt that failed ran then or just after. The
 * {@code lastAttemptDue…} bounds are on that time.
 *
 * @param eventType exactly this event type
 * @param aggregateId exactly this aggregate
 * @param handlerId exactly this handler's records
 * @param createdFrom created at or after
 * @param createdBefore created before
 * @param errorContains the last error contains this text, compared without regard to case
 * @param lastAttemptDueFrom the last attempt fell due at or after
 * @param lastAttemptDueBefore the last attempt fell due before
 */
public record FailedRecordFilter(@Nullable String eventType, @Nullable String aggregateId,
        @Nullable String handlerId, @Nullable Instant createdFrom, @Nullable Instant createdBefore,
        @Nullable String errorContains, @Nullable Instant lastAttemptDueFrom, @Nullable Instant lastAttemptDueBefore) {

    private static final FailedRecordFilter ANY = new FailedRecordFilter(null, null, null, null, null, null, null,
            null);

    /** Every FAILED record. */
    public static FailedRecordFilter any() {
        return ANY;
    }

    public FailedRecordFilter withEventType(@Nullable String eventType) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore, errorContains,
                lastAttemptDueFrom, lastAttemptDueBefore);
    }

    public FailedRecordFilter withAggregateId(@Nullable String aggregateId) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore, errorContains,
                lastAttemptDueFrom, lastAttemptDueBefore);
    }

    public FailedRecordFilter withHandlerId(@Nullable String handlerId) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore, errorContains,
                lastAttemptDueFrom, lastAttemptDueBefore);
    }

    public FailedRecordFilter createdBetween(@Nullable Instant from, @Nullable Instant before) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, from, before, errorContains,
                lastAttemptDueFrom, lastAttemptDueBefore);
    }

    /**
     * Records whose last error contains this text, compared without regard to case.
     *
     * @since 0.1.0
     */
    public FailedRecordFilter withErrorContaining(@Nullable String errorContains) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore, errorContains,
                lastAttemptDueFrom, lastAttemptDueBefore);
    }

    /**
     * Records whose last attempt fell due at or after {@code from} and before {@code before}: about when they failed.
     *
     * @since 0.1.0
     */
    public FailedRecordFilter lastAttemptDueBetween(@Nullable Instant from, @Nullable Instant before) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore, errorContains,
                from, before);
    }

    /** Whether the record matches every criterion given (its status is not looked at). */
    public boolean matches(OutboxRecord record) {
        return (eventType == null || eventType.equals(record.getEventType()))
                && (aggregateId == null || aggregateId.equals(record.getAggregateId()))
                && (handlerId == null || handlerId.equals(record.getHandlerId()))
                && (createdFrom == null || !record.getCreatedAt().isBefore(createdFrom))
                && (createdBefore == null || record.getCreatedAt().isBefore(createdBefore))
                && (errorContains == null || errorContains(record.getLastError(), errorContains))
                && (lastAttemptDueFrom == null || !record.getNextRetryAt().isBefore(lastAttemptDueFrom))
                && (lastAttemptDueBefore == null || record.getNextRetryAt().isBefore(lastAttemptDueBefore));
    }

    private static boolean errorContains(@Nullable String lastError, String text) {
        return lastError != null && lastError.toLowerCase(Locale.ROOT).contains(text.toLowerCase(Locale.ROOT));
    }
}
