package dev.outbox;

import dev.outbox.partition.PartitionHasher;
import java.time.Clock;
import java.time.Instant;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One event waiting in, or processed from, the outbox. Immutable.
 *
 * <p>Create new records with {@link #builder()} inside the business transaction and save them with
 * {@link OutboxRecordRepository#save(OutboxRecord)}. {@link #restore()} recreates a record with every field given, for
 * tests and for stores that read rows back.
 *
 * <p>Getters follow the JavaBeans convention so that Kotlin sees properties ({@code record.eventType}).
 *
 * <p>The two builders that {@link #builder()} and {@link #restore()} return are nested here as the API names them;
 * their setters live in {@code NewRecordValues} and {@code RecordValues}, the checks of the fields in
 * {@code RecordFields} and {@code RecordHeaders}.
 */
public final class OutboxRecord {

    /** Length limit of a record's id, in characters; the ids the library assigns are 36 characters long. */
    public static final int MAX_ID_LENGTH = 64;
    /** Length limit of {@code aggregate_id}, in characters; the column is {@code VARCHAR(255)}. */
    public static final int MAX_AGGREGATE_ID_LENGTH = 255;
    /** Length limit of {@code event_type}, in characters; the column is {@code VARCHAR(255)}. */
    public static final int MAX_EVENT_TYPE_LENGTH = 255;
    /** Default limit of the payload, in UTF-8 bytes (1 MiB). Configurable with {@code outbox.max-payload-size}. */
    public static final int DEFAULT_MAX_PAYLOAD_BYTES = 1024 * 1024;
    /** Length limit of the stored error text, in characters; longer texts are cut. */
    public static final int MAX_ERROR_LENGTH = 2000;
    /** Longest trace context stored with a record (column {@code trace_context}). */
    public static final int MAX_TRACE_CONTEXT_LENGTH = 1000;
    /** Length limit of {@code handler_id}, in characters; the column is {@code VARCHAR(255)}. */
    public static final int MAX_HANDLER_ID_LENGTH = 255;

    private final String id;
    private final String aggregateId;
    private final String eventType;
    private final String payload;
    private final int partition;
    private final Instant createdAt;
    private final OutboxRecordStatus status;
    private final @Nullable Instant completedAt;
    private final int retryCount;
    private final Instant nextRetryAt;
    private final @Nullable Long sequence;
    private final @Nullable String lastError;
    private final @Nullable String traceContext;
    private final @Nullable String handlerId;
    private final @Nullable Instant firstDeferredAt;
    private final long epoch;
    private final Map<String, String> headers;

    private OutboxRecord(RestoreBuilder b) {
        this.id = RecordFields.requireText("id", b.id, MAX_ID_LENGTH);
        this.aggregateId = RecordFields.requireText("aggregateId", b.aggregateId, MAX_AGGREGATE_ID_LENGTH);
        this.eventType = RecordFields.requireText("eventType", b.eventType, MAX_EVENT_TYPE_LENGTH);
        this.payload = Objects.requireNonNull(b.payload, "payload must not be null");
        this.partition = b.partition == null ? PartitionHasher.partitionOf(aggregateId) : b.partition;
        if (partition != PartitionHasher.partitionOf(aggregateId)) {
            throw new IllegalArgumentException("partition is " + partition + " but aggregateId '" + aggregateId
                    + "' hashes to partition " + PartitionHasher.partitionOf(aggregateId));
        }
        this.createdAt = Objects.requireNonNull(b.createdAt, "createdAt must not be null");
        this.status = Objects.requireNonNull(b.status, "status must not be null");
        this.completedAt = b.completedAt;
        if (b.retryCount < 0) {
            throw new IllegalArgumentException("retryCount must be >= 0 but was " + b.retryCount);
        }
        this.retryCount = b.retryCount;
        this.nextRetryAt = Objects.requireNonNull(b.nextRetryAt, "nextRetryAt must not be null");
        this.sequence = b.sequence;
        this.lastError = RecordFields.optionalText("lastError", b.lastError, MAX_ERROR_LENGTH);
        this.traceContext = RecordFields.optionalText("traceContext", b.traceContext, MAX_TRACE_CONTEXT_LENGTH);
        this.handlerId = b.handlerId == null || b.handlerId.isEmpty() ? null
                : RecordFields.requireText("handlerId", b.handlerId, MAX_HANDLER_ID_LENGTH);
        this.firstDeferredAt = b.firstDeferredAt;
        if (b.epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0 but was " + b.epoch);
        }
        this.epoch = b.epoch;
        this.headers = b.headers.isEmpty() ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    }

    /**
     * A copy under another epoch: every record delivered under a fence is one, so its fields, checked already, are
     * taken as they are rather than checked and copied again through a builder.
     */
    private OutboxRecord(OutboxRecord record, long epoch) {
        this.id = record.id;
        this.aggregateId = record.aggregateId;
        this.eventType = record.eventType;
        this.payload = record.payload;
        this.partition = record.partition;
        this.createdAt = record.createdAt;
        this.status = record.status;
        this.completedAt = record.completedAt;
        this.retryCount = record.retryCount;
        this.nextRetryAt = record.nextRetryAt;
        this.sequence = record.sequence;
        this.lastError = record.lastError;
        this.traceContext = record.traceContext;
        this.handlerId = record.handlerId;
        this.firstDeferredAt = record.firstDeferredAt;
        this.epoch = epoch;
        this.headers = record.headers;
    }

    /** Starts a new record. */
    public static Builder builder() {
        return new Builder();
    }

    /** Recreates a record with every field given: for tests and for stores reading rows back. */
    public static RestoreBuilder restore() {
        return new RestoreBuilder();
    }

    /** Unique id, a time-ordered UUID for new records. */
    public String getId() {
        return id;
    }

    /** The aggregate this event belongs to; records of one aggregate are processed in order. */
    public String getAggregateId() {
        return aggregateId;
    }

    public String getEventType() {
        return eventType;
    }

    /** The serialized event, usually JSON. */
    public String getPayload() {
        return payload;
    }

    /** {@link PartitionHasher#partitionOf(String)} of the aggregate id. */
    public int getPartition() {
        return partition;
    }

    public Instant getCreatedAt() {
        return createdAt;
    }

    public OutboxRecordStatus getStatus() {
        return status;
    }

    public @Nullable Instant getCompletedAt() {
        return completedAt;
    }

    /** Retries performed so far: the attempt in progress is number {@code retryCount + 1}. */
    public int getRetryCount() {
        return retryCount;
    }

    /** The record is not processed before this instant. Equal to {@link #getCreatedAt()} for a new record. */
    public Instant getNextRetryAt() {
        return nextRetryAt;
    }

    /**
     * Database-assigned insertion order, the per-aggregate tie-breaker; null until the record has been stored and read
     * back.
     */
    public @Nullable Long getSequence() {
        return sequence;
    }

    /** Text of the last failure, at most {@value #MAX_ERROR_LENGTH} characters, or null. */
    public @Nullable String getLastError() {
        return lastError;
    }

    /**
     * The trace context that was current when the record was written (propagation headers, encoded by the
     * observation that captured them), so that processing continues the writer's trace; null when none was captured.
     */
    public @Nullable String getTraceContext() {
        return traceContext;
    }

    /** This record with the trace context of its write; see {@link #getTraceContext()}. */
    public OutboxRecord withTraceContext(@Nullable String traceContext) {
        return Objects.equals(traceContext, this.traceContext) ? this
                : toBuilder().traceContext(RecordFields.withoutNul("traceContext", traceContext)).build();
    }

    /**
     * The one handler this record is addressed to, or null for the application's {@link OutboxRecordProcessor}. When
     * several handlers subscribe to an event type, the repository stores one record per handler, each with its own
     * status, attempts and retry schedule; records of one aggregate are in order per handler.
     */
    public @Nullable String getHandlerId() {
        return handlerId;
    }

    /**
     * When an instance without the record's handler first deferred it (see
     * {@code dev.outbox.processing.HandlerNotDeployedException}): {@code outbox.processing.max-deferral} counts from
     * here. Null while the record has not been deferred, and again once it was handled, retried after an attempt or
     * retried by an operator.
     *
     * @since 0.1.0
     */
    public @Nullable Instant getFirstDeferredAt() {
        return firstDeferredAt;
    }

    /** This record, same id, addressed to one handler; see {@link #getHandlerId()}. */
    public OutboxRecord withHandlerId(String handlerId) {
        return handlerId.equals(this.handlerId) ? this : toBuilder().handlerId(handlerId).build();
    }

    /** A copy of this record under a new id, addressed to another handler: one of the records of a fan-out. */
    public OutboxRecord copyForHandler(String handlerId) {
        return toBuilder().id(RecordIds.next(createdAt)).handlerId(handlerId).build();
    }

    /**
     * The epoch of the partition under which this record is being delivered: it increases every time the partition
     * changes owner, so a downstream system can reject deliveries from an instance that no longer owns the partition.
     * 0 outside of delivery and for a single instance that owns every partition without coordination.
     */
    public long getEpoch() {
        return epoch;
    }

    /** This record as delivered under the given partition epoch. */
    public OutboxRecord withEpoch(long epoch) {
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0 but was " + epoch);
        }
        return epoch == this.epoch ? this : new OutboxRecord(this, epoch);
    }

    /**
     * The record's headers, in the order they were set: free-form names and values of the writer's (see
     * {@link RecordHeaders} for the limits). Empty when it set none.
     */
    public Map<String, String> getHeaders() {
        return headers;
    }

    /**
     * This record with {@code added} headers too; a header it has already keeps its value.
     *
     * @throws IllegalArgumentException when the headers together break a limit of {@link RecordHeaders}
     */
    public OutboxRecord withHeaders(Map<String, String> added) {
        if (added.isEmpty() || headers.keySet().containsAll(added.keySet())) {
            return this;
        }
        Map<String, String> all = new LinkedHashMap<>(headers);
        added.forEach(all::putIfAbsent);
        return toBuilder().headers(RecordHeaders.checked(all)).build();
    }

    /** A builder preloaded with this record's fields. */
    public RestoreBuilder toBuilder() {
        return new RestoreBuilder().id(id).aggregateId(aggregateId).eventType(eventType).payload(payload)
                .partition(partition).createdAt(createdAt).status(status).completedAt(completedAt)
                .retryCount(retryCount).nextRetryAt(nextRetryAt).sequence(sequence).lastError(lastError)
                .traceContext(traceContext).handlerId(handlerId).firstDeferredAt(firstDeferredAt).epoch(epoch)
                .headers(headers);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OutboxRecord that && id.equals(that.id);
    }

    @Override
    public int hashCode() {
        return id.hashCode();
    }

    @Override
    public String toString() {
        return "OutboxRecord[id=" + id + ", aggregateId=" + aggregateId + ", eventType=" + eventType
                + (handlerId == null ? "" : ", handlerId=" + handlerId) + ", partition=" + partition
                + ", epoch=" + epoch + ", sequence=" + sequence + ", status=" + status
                + ", retryCount=" + retryCount + "]";
    }

    /**
     * Checks a payload against a limit in UTF-8 bytes, the one rule every write path applies.
     *
     * @throws IllegalArgumentException naming {@code outbox.max-payload-size} when the payload is larger, or when it is
     *     not text every database can store (unpaired surrogates, U+0000)
     */
    public static void checkPayloadSize(String payload, int maxPayloadBytes) {
        RecordFields.checkPayloadSize(payload, maxPayloadBytes);
    }

    /**
     * Checks a value that is compared with a record's text field (an id, event type, aggregate id or handler id given
     * to a query) by the rules a new record's field obeys, so that it never reaches the database when no record can
     * match it: PostgreSQL can neither store nor compare U+0000, and an unpaired surrogate is not text.
     *
     * @param name the parameter, named by the exception
     * @param maxLength the field's limit in characters, e.g. {@link #MAX_EVENT_TYPE_LENGTH}
     * @return {@code value}
     * @throws IllegalArgumentException naming {@code name} (and the limit) for a null or blank value, one longer than
     *     {@code maxLength}, one that is not valid UTF-16 or one that contains U+0000; the message does not repeat the
     *     value
     */
    public static String checkTextField(String name, @Nullable String value, int maxLength) {
        return RecordFields.storableText(name, value, maxLength);
    }

    /** Checks a configured payload limit: at least one byte. */
    public static int checkPayloadLimit(int maxPayloadBytes) {
        if (maxPayloadBytes < 1) {
            throw new IllegalArgumentException("outbox.max-payload-size must be >= 1 byte but was " + maxPayloadBytes);
        }
        return maxPayloadBytes;
    }

    /** Builds a new record: validates the input, assigns an id and computes the partition. Not thread-safe. */
    public static final class Builder extends NewRecordValues {

        private Builder() {
        }

        @Override
        Builder self() {
            return this;
        }

        /**
         * Validates and creates the record, due at once or when delayed delivery says. Throws
         * {@link IllegalArgumentException} naming the field for a null or blank aggregate id or event type, an id or
         * type longer than its column, text that is not valid UTF-16 or contains U+0000 (which PostgreSQL cannot
         * store), a payload over the limit, or headers that break a rule of {@link RecordHeaders}.
         */
        public OutboxRecord build(Clock clock) {
            Objects.requireNonNull(clock, "clock must not be null");
            if (payload == null) {
                throw new IllegalArgumentException("payload must not be null");
            }
            checkPayloadSize(payload, maxPayloadBytes);
            Instant now = clock.instant();
            Instant due = now;
            if (availableAt != null && availableAt.isAfter(now)) {
                due = availableAt;
            } else if (deliverAfter != null) {
                due = now.plus(deliverAfter);
            }
            return new RestoreBuilder().id(RecordIds.next(now))
                    .aggregateId(RecordFields.withoutNul("aggregateId", aggregateId))
                    .eventType(RecordFields.withoutNul("eventType", eventType))
                    .handlerId(RecordFields.withoutNul("handlerId", handlerId))
                    .payload(payload).createdAt(now).status(OutboxRecordStatus.NEW).retryCount(0)
                    .nextRetryAt(due).headers(RecordHeaders.checked(headers)).build();
        }
    }

    /** Sets every field of a record; missing partition is computed, everything else is required but nullable ones. */
    public static final class RestoreBuilder extends RecordValues {

        private RestoreBuilder() {
        }

        @Override
        RestoreBuilder self() {
            return this;
        }

        public OutboxRecord build() {
            if (nextRetryAt == null) {
                nextRetryAt = createdAt;
            }
            return new OutboxRecord(this);
        }
    }
}
