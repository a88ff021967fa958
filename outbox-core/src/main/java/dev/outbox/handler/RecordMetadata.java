package dev.outbox.handler;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a typed handler knows of the record besides its payload. Immutable; getters follow the JavaBeans convention so
 * that Kotlin sees properties ({@code metadata.attempt}).
 */
public final class RecordMetadata {

    private final OutboxRecord record;

    private RecordMetadata(OutboxRecord record) {
        this.record = record;
    }

    public static RecordMetadata of(OutboxRecord record) {
        return new RecordMetadata(Objects.requireNonNull(record, "record"));
    }

    /** The record's id: stable across retries and re-deliveries, and distinct per handler; an idempotency key. */
    public String getId() {
        return record.getId();
    }

    public String getAggregateId() {
        return record.getAggregateId();
    }

    public String getEventType() {
        return record.getEventType();
    }

    /** The handler the record is addressed to; null for the application's record processor. */
    public @Nullable String getHandlerId() {
        return record.getHandlerId();
    }

    /** Database-assigned insertion order; null only for records that were never stored. */
    public @Nullable Long getSequence() {
        return record.getSequence();
    }

    /** 1 for the first attempt, 2 for the first retry, and so on. */
    public int getAttempt() {
        return record.getRetryCount() + 1;
    }

    public int getPartition() {
        return record.getPartition();
    }

    /** The partition epoch of this delivery; see {@link OutboxRecord#getEpoch()}. */
    public long getEpoch() {
        return record.getEpoch();
    }

    public Instant getCreatedAt() {
        return record.getCreatedAt();
    }

    /** The record's headers, set by its writer (and by context providers); empty when there are none. */
    public Map<String, String> getHeaders() {
        return record.getHeaders();
    }

    /** The trace context of the record's write, or null; see {@link OutboxRecord#getTraceContext()}. */
    public @Nullable String getTraceContext() {
        return record.getTraceContext();
    }

    OutboxRecord record() {
        return record;
    }

    @Override
    public String toString() {
        return "RecordMetadata[id=" + getId() + ", aggregateId=" + getAggregateId() + ", eventType=" + getEventType()
                + ", handlerId=" + getHandlerId() + ", sequence=" + getSequence() + ", attempt=" + getAttempt() + "]";
    }
}
