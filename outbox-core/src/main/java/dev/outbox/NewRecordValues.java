package dev.outbox;

import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What a writer sets on a new record: the setters of {@link OutboxRecord.Builder}, which the API names. They live in
 * this package-private base (as {@code StringBuilder}'s live in {@code AbstractStringBuilder}) so that
 * {@link OutboxRecord} holds the record itself; {@link OutboxRecord.Builder#build(java.time.Clock)} checks them.
 */
abstract class NewRecordValues {

    @Nullable String aggregateId;
    @Nullable String eventType;
    @Nullable String payload;
    int maxPayloadBytes = OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES;
    @Nullable Instant availableAt;
    @Nullable Duration deliverAfter;
    @Nullable String handlerId;
    final Map<String, String> headers = new LinkedHashMap<>();

    NewRecordValues() {
    }

    abstract OutboxRecord.Builder self();

    /**
     * Addresses the record to one handler only. Without it the repository stores one record for each handler
     * subscribed to the event type, or one for the {@link OutboxRecordProcessor} when none is.
     */
    public OutboxRecord.Builder handlerId(String handlerId) {
        this.handlerId = handlerId;
        return self();
    }

    public OutboxRecord.Builder aggregateId(String aggregateId) {
        this.aggregateId = aggregateId;
        return self();
    }

    public OutboxRecord.Builder eventType(String eventType) {
        this.eventType = eventType;
        return self();
    }

    public OutboxRecord.Builder payload(String payload) {
        this.payload = payload;
        return self();
    }

    /**
     * Payload limit for this record in UTF-8 bytes, default {@value OutboxRecord#DEFAULT_MAX_PAYLOAD_BYTES}. The
     * {@link Outbox} façade passes {@code outbox.max-payload-size}; the repository checks that limit again.
     */
    public OutboxRecord.Builder maxPayloadBytes(int maxPayloadBytes) {
        this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
        return self();
    }

    /**
     * Delayed delivery: the record is not processed before {@code availableAt}, and the later records of its
     * aggregate wait behind it (per-aggregate order holds). A time in the past means at once. Replaces
     * {@link #deliverAfter(Duration)}.
     */
    public OutboxRecord.Builder availableAt(Instant availableAt) {
        this.availableAt = Objects.requireNonNull(availableAt, "availableAt must not be null");
        this.deliverAfter = null;
        return self();
    }

    /**
     * Delayed delivery: the record is not processed before {@code delay} after its creation; see
     * {@link #availableAt(Instant)}. Replaces it.
     */
    public OutboxRecord.Builder deliverAfter(Duration delay) {
        Objects.requireNonNull(delay, "deliverAfter must not be null");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("deliverAfter must not be negative but was " + delay);
        }
        this.deliverAfter = delay;
        this.availableAt = null;
        return self();
    }

    /** A header of the record; see {@link RecordHeaders} for the rules, checked by {@link OutboxRecord.Builder#build(java.time.Clock)}. */
    public OutboxRecord.Builder header(String name, String value) {
        headers.put(name, value);
        return self();
    }

    /** Headers of the record, added to those set before. */
    public OutboxRecord.Builder headers(Map<String, String> headers) {
        this.headers.putAll(headers);
        return self();
    }
}
