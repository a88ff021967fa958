package dev.outbox;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Every field of a record, set one by one: the setters of {@link OutboxRecord.RestoreBuilder}, which the API names.
 * They live in this package-private base (as {@code StringBuilder}'s live in {@code AbstractStringBuilder}) so that
 * {@link OutboxRecord} holds the record itself; the record checks the values when it is built.
 */
abstract class RecordValues {

    @Nullable String id;
    @Nullable String aggregateId;
    @Nullable String eventType;
    @Nullable String payload;
    @Nullable Integer partition;
    @Nullable Instant createdAt;
    OutboxRecordStatus status = OutboxRecordStatus.NEW;
    @Nullable Instant completedAt;
    int retryCount;
    @Nullable Instant nextRetryAt;
    @Nullable Long sequence;
    @Nullable String lastError;
    @Nullable String traceContext;
    @Nullable String handlerId;
    @Nullable Instant firstDeferredAt;
    long epoch;
    Map<String, String> headers = Map.of();

    RecordValues() {
    }

    abstract OutboxRecord.RestoreBuilder self();

    /** Null or empty: the application's {@link OutboxRecordProcessor}; see {@link OutboxRecord#getHandlerId()}. */
    public OutboxRecord.RestoreBuilder handlerId(@Nullable String handlerId) {
        this.handlerId = handlerId;
        return self();
    }

    /** See {@link OutboxRecord#getFirstDeferredAt()}. */
    public OutboxRecord.RestoreBuilder firstDeferredAt(@Nullable Instant firstDeferredAt) {
        this.firstDeferredAt = firstDeferredAt;
        return self();
    }

    public OutboxRecord.RestoreBuilder id(@Nullable String id) {
        this.id = id;
        return self();
    }

    public OutboxRecord.RestoreBuilder aggregateId(@Nullable String aggregateId) {
        this.aggregateId = aggregateId;
        return self();
    }

    public OutboxRecord.RestoreBuilder eventType(@Nullable String eventType) {
        this.eventType = eventType;
        return self();
    }

    public OutboxRecord.RestoreBuilder payload(@Nullable String payload) {
        this.payload = payload;
        return self();
    }

    /** Optional: when given it must equal the hash of the aggregate id. */
    public OutboxRecord.RestoreBuilder partition(int partition) {
        this.partition = partition;
        return self();
    }

    public OutboxRecord.RestoreBuilder createdAt(@Nullable Instant createdAt) {
        this.createdAt = createdAt;
        return self();
    }

    public OutboxRecord.RestoreBuilder status(OutboxRecordStatus status) {
        this.status = status;
        return self();
    }

    public OutboxRecord.RestoreBuilder completedAt(@Nullable Instant completedAt) {
        this.completedAt = completedAt;
        return self();
    }

    public OutboxRecord.RestoreBuilder retryCount(int retryCount) {
        this.retryCount = retryCount;
        return self();
    }

    /** Defaults to {@code createdAt}. */
    public OutboxRecord.RestoreBuilder nextRetryAt(@Nullable Instant nextRetryAt) {
        this.nextRetryAt = nextRetryAt;
        return self();
    }

    public OutboxRecord.RestoreBuilder sequence(@Nullable Long sequence) {
        this.sequence = sequence;
        return self();
    }

    public OutboxRecord.RestoreBuilder lastError(@Nullable String lastError) {
        this.lastError = lastError;
        return self();
    }

    /**
     * At most {@value OutboxRecord#MAX_TRACE_CONTEXT_LENGTH} characters; see
     * {@link OutboxRecord#getTraceContext()}.
     */
    public OutboxRecord.RestoreBuilder traceContext(@Nullable String traceContext) {
        this.traceContext = traceContext;
        return self();
    }

    /** The headers as stored; taken as they are (the rules apply to new records). */
    public OutboxRecord.RestoreBuilder headers(Map<String, String> headers) {
        this.headers = Objects.requireNonNull(headers, "headers must not be null");
        return self();
    }

    /** The partition epoch of a delivery; see {@link OutboxRecord#getEpoch()}. */
    public OutboxRecord.RestoreBuilder epoch(long epoch) {
        this.epoch = epoch;
        return self();
    }
}
