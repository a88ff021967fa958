package dev.outbox.publish;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.PropagationHeaders;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The headers every publisher puts on a message, the same names on every broker:
 *
 * <ul>
 *   <li>{@value #RECORD_ID}: the record id, stable across redeliveries: what a consumer deduplicates by;</li>
 *   <li>{@value #EVENT_TYPE}, {@value #AGGREGATE_ID} and {@value #SEQUENCE} (the record's place in its aggregate,
 *       when it has one);</li>
 *   <li>{@value #PARTITION} and {@value #EPOCH}: the outbox partition and the fencing epoch it was published
 *       under;</li>
 *   <li>{@value #CREATED_AT}: when the record was written, ISO-8601 UTC;</li>
 *   <li>{@value #CONTENT_TYPE}: the payload's media type;</li>
 *   <li>the trace context stored with the record ({@code traceparent}, {@code tracestate}, …), so the consumer's span
 *       continues the writer's trace;</li>
 *   <li>with {@link Builder#cloudEvents(String)}, the CloudEvents attributes in binary mode: {@code ce_specversion},
 *       {@code ce_id}, {@code ce_type}, {@code ce_source}, {@code ce_subject} (the aggregate id) and
 *       {@code ce_time}.</li>
 * </ul>
 *
 * Immutable; build with {@link #builder()}.
 */
public final class OutboxMessageHeaders {

    public static final String RECORD_ID = "outbox-record-id";
    public static final String EVENT_TYPE = "outbox-event-type";
    public static final String AGGREGATE_ID = "outbox-aggregate-id";
    public static final String SEQUENCE = "outbox-sequence";
    public static final String PARTITION = "outbox-partition";
    public static final String EPOCH = "outbox-epoch";
    public static final String CREATED_AT = "outbox-created-at";
    public static final String CONTENT_TYPE = "content-type";
    public static final String DEFAULT_CONTENT_TYPE = "application/json";

    private final String contentType;
    private final @Nullable String cloudEventsSource;

    private OutboxMessageHeaders(Builder builder) {
        this.contentType = builder.contentType;
        this.cloudEventsSource = builder.cloudEventsSource;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** JSON payloads, no CloudEvents attributes. */
    public static OutboxMessageHeaders defaults() {
        return builder().build();
    }

    /** The headers of {@code record}'s message, in a fixed order. */
    public Map<String, String> of(OutboxRecord record) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put(RECORD_ID, record.getId());
        headers.put(EVENT_TYPE, record.getEventType());
        headers.put(AGGREGATE_ID, record.getAggregateId());
        if (record.getSequence() != null) {
            headers.put(SEQUENCE, Long.toString(record.getSequence()));
        }
        headers.put(PARTITION, Integer.toString(record.getPartition()));
        headers.put(EPOCH, Long.toString(record.getEpoch()));
        headers.put(CREATED_AT, record.getCreatedAt().toString());
        headers.put(CONTENT_TYPE, contentType);
        PropagationHeaders.decode(record.getTraceContext()).forEach(headers::putIfAbsent);
        // the writer's own headers, but never in place of the outbox's
        record.getHeaders().forEach(headers::putIfAbsent);
        if (cloudEventsSource != null) {
            headers.put("ce_specversion", "1.0");
            headers.put("ce_id", record.getId());
            headers.put("ce_type", record.getEventType());
            headers.put("ce_source", cloudEventsSource);
            headers.put("ce_subject", record.getAggregateId());
            headers.put("ce_time", record.getCreatedAt().toString());
        }
        return headers;
    }

    public String contentType() {
        return contentType;
    }

    /** The {@code ce_source} of CloudEvents attributes; null when they are off. */
    public @Nullable String cloudEventsSource() {
        return cloudEventsSource;
    }

    @Override
    public String toString() {
        return "OutboxMessageHeaders[contentType=" + contentType
                + (cloudEventsSource == null ? "" : ", cloudEvents source=" + cloudEventsSource) + "]";
    }

    /** Not thread-safe. */
    public static final class Builder {

        private String contentType = DEFAULT_CONTENT_TYPE;
        private @Nullable String cloudEventsSource;

        private Builder() {
        }

        /** The payload's media type. Default: {@value OutboxMessageHeaders#DEFAULT_CONTENT_TYPE}. */
        public Builder contentType(String contentType) {
            Objects.requireNonNull(contentType, "contentType");
            if (contentType.isBlank()) {
                throw new IllegalArgumentException("contentType must not be blank");
            }
            this.contentType = contentType;
            return this;
        }

        /**
         * Adds the CloudEvents attributes (binary mode) with {@code source} as {@code ce_source}, e.g. the
         * application's name or URI; null leaves them out.
         */
        public Builder cloudEvents(@Nullable String source) {
            if (source != null && source.isBlank()) {
                throw new IllegalArgumentException("cloudEvents source must not be blank");
            }
            this.cloudEventsSource = source;
            return this;
        }

        public OutboxMessageHeaders build() {
            return new OutboxMessageHeaders(this);
        }
    }
}
