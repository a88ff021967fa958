package dev.outbox.spi;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Which FAILED records an operator means; every criterion is optional and they combine with AND. Immutable: the
 * {@code with…} methods return a new filter.
 *
 * @param eventType exactly this event type
 * @param aggregateId exactly this aggregate
 * @param createdFrom created at or after
 * @param createdBefore created before
 */
public record FailedRecordFilter(@Nullable String eventType, @Nullable String aggregateId,
        @Nullable Instant createdFrom, @Nullable Instant createdBefore) {

    private static final FailedRecordFilter ANY = new FailedRecordFilter(null, null, null, null);

    /** Every FAILED record. */
    public static FailedRecordFilter any() {
        return ANY;
    }

    public FailedRecordFilter withEventType(@Nullable String eventType) {
        return new FailedRecordFilter(eventType, aggregateId, createdFrom, createdBefore);
    }

    public FailedRecordFilter withAggregateId(@Nullable String aggregateId) {
        return new FailedRecordFilter(eventType, aggregateId, createdFrom, createdBefore);
    }

    public FailedRecordFilter createdBetween(@Nullable Instant from, @Nullable Instant before) {
        return new FailedRecordFilter(eventType, aggregateId, from, before);
    }

    /** Whether a record with these fields matches. */
    public boolean matches(String recordEventType, String recordAggregateId, Instant createdAt) {
        return (eventType == null || eventType.equals(recordEventType))
                && (aggregateId == null || aggregateId.equals(recordAggregateId))
                && (createdFrom == null || !createdAt.isBefore(createdFrom))
                && (createdBefore == null || createdAt.isBefore(createdBefore));
    }
}
