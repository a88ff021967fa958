package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * Which FAILED records an operator means; every criterion is optional and they combine with AND. Immutable: the
 * {@code with…} methods return a new filter.
 *
 * @param eventType exactly this event type
 * @param aggregateId exactly this aggregate
 * @param handlerId exactly this handler's records
 * @param createdFrom created at or after
 * @param createdBefore created before
 */
public record FailedRecordFilter(@Nullable String eventType, @Nullable String aggregateId,
        @Nullable String handlerId, @Nullable Instant createdFrom, @Nullable Instant createdBefore) {

    private static final FailedRecordFilter ANY = new FailedRecordFilter(null, null, null, null, null);

    /** Every FAILED record. */
    public static FailedRecordFilter any() {
        return ANY;
    }

    public FailedRecordFilter withEventType(@Nullable String eventType) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore);
    }

    public FailedRecordFilter withAggregateId(@Nullable String aggregateId) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore);
    }

    public FailedRecordFilter withHandlerId(@Nullable String handlerId) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, createdFrom, createdBefore);
    }

    public FailedRecordFilter createdBetween(@Nullable Instant from, @Nullable Instant before) {
        return new FailedRecordFilter(eventType, aggregateId, handlerId, from, before);
    }

    /** Whether the record matches every criterion given (its status is not looked at). */
    public boolean matches(OutboxRecord record) {
        return (eventType == null || eventType.equals(record.getEventType()))
                && (aggregateId == null || aggregateId.equals(record.getAggregateId()))
                && (handlerId == null || handlerId.equals(record.getHandlerId()))
                && (createdFrom == null || !record.getCreatedAt().isBefore(createdFrom))
                && (createdBefore == null || record.getCreatedAt().isBefore(createdBefore));
    }
}
