package dev.outbox.handler;

import dev.outbox.OutboxFallbackHandler;
import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.retry.OutboxRetryPolicy;
import java.lang.reflect.Type;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * One typed handler: its stable id, the event type it subscribes to, the type its payload is read into, optionally
 * a retry policy and a fallback of its own, and whether it is transactional. Immutable; build with
 * {@link #builder(String, Class)}.
 *
 * <pre>{@code
 * HandlerRegistration.builder("order-mailer", OrderPlaced.class)
 *         .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(30)).withMaxRetries(10))
 *         .handler((event, metadata) -> mailer.confirm(event.orderId()))
 *         .build();
 * }</pre>
 *
 * @param <T> the payload type
 */
public final class HandlerRegistration<T> {

    private final String id;
    private final String eventType;
    private final Type payloadType;
    private final OutboxEventHandler<T> handler;
    private final @Nullable OutboxRetryPolicy retryPolicy;
    private final @Nullable OutboxFallbackHandler fallback;
    private final boolean transactional;

    private HandlerRegistration(Builder<T> b, OutboxEventHandler<T> handler) {
        this.id = b.id;
        this.eventType = b.eventType;
        this.payloadType = b.payloadType;
        this.handler = handler;
        this.retryPolicy = b.retryPolicy;
        this.fallback = b.fallback;
        this.transactional = b.transactional;
    }

    /**
     * Starts a handler of the payload type {@code type}, subscribed by default to the event type named like the
     * type's simple name (as {@link dev.outbox.Outbox} names events).
     *
     * @param id the handler's stable name, stored with each of its records: renaming it orphans them. Letters,
     *     digits, '.', '_', ':' and '-', at most 255 characters
     */
    public static <T> Builder<T> builder(String id, Class<T> type) {
        Objects.requireNonNull(type, "type must not be null");
        return new Builder<>(id, type, type.getSimpleName());
    }

    /** A handler of {@code type} with the default event type, retry policy and no fallback. */
    public static <T> HandlerRegistration<T> of(String id, Class<T> type, OutboxEventHandler<T> handler) {
        return builder(id, type).handler(handler).build();
    }

    /** For handlers found by reflection, whose parameter type may be generic. */
    static Builder<Object> builder(String id, Type type, String defaultEventType) {
        return new Builder<>(id, type, defaultEventType);
    }

    public String getId() {
        return id;
    }

    public String getEventType() {
        return eventType;
    }

    public Type getPayloadType() {
        return payloadType;
    }

    public OutboxEventHandler<T> getHandler() {
        return handler;
    }

    /** Null: the policy the processing engine was configured with ({@code outbox.retry.*}). */
    public @Nullable OutboxRetryPolicy getRetryPolicy() {
        return retryPolicy;
    }

    public @Nullable OutboxFallbackHandler getFallback() {
        return fallback;
    }

    /** Whether the handler runs in a transaction of the records' database with its record's completion. */
    public boolean isTransactional() {
        return transactional;
    }

    @Override
    public String toString() {
        return "HandlerRegistration[id=" + id + ", eventType=" + eventType + ", payloadType=" + payloadType.getTypeName()
                + (retryPolicy == null ? "" : ", retryPolicy=" + retryPolicy)
                + (fallback == null ? "" : ", with fallback") + (transactional ? ", transactional" : "") + "]";
    }

    /** Checks a handler id: not empty, at most 255 characters of letters, digits, '.', '_', ':' and '-'. */
    public static String checkHandlerId(@Nullable String id) {
        return Checks.handlerId(id, OutboxRecord.MAX_HANDLER_ID_LENGTH);
    }

    /** Not thread-safe. */
    public static final class Builder<T> {

        private final String id;
        private final Type payloadType;
        private String eventType;
        private @Nullable OutboxEventHandler<T> handler;
        private @Nullable OutboxRetryPolicy retryPolicy;
        private @Nullable OutboxFallbackHandler fallback;
        private boolean transactional;

        private Builder(String id, Type payloadType, String eventType) {
            this.id = checkHandlerId(id);
            this.payloadType = Objects.requireNonNull(payloadType, "payloadType must not be null");
            this.eventType = eventType;
        }

        /** The event type this handler subscribes to, when it differs from the payload type's simple name. */
        public Builder<T> eventType(String eventType) {
            Objects.requireNonNull(eventType, "eventType must not be null");
            if (eventType.isBlank()) {
                throw new IllegalArgumentException("eventType of handler '" + id + "' must not be blank");
            }
            this.eventType = eventType;
            return this;
        }

        /** A retry policy for this handler's records only; it may bound the retries with its own maximum. */
        public Builder<T> retryPolicy(@Nullable OutboxRetryPolicy retryPolicy) {
            this.retryPolicy = retryPolicy;
            return this;
        }

        /** Called when a record of this handler has failed for good; see {@link OutboxFallbackHandler}. */
        public Builder<T> fallback(@Nullable OutboxFallbackHandler fallback) {
            this.fallback = fallback;
            return this;
        }

        /**
         * Whether the handler's effects live in the outbox's own database and commit with its record: the engine then
         * runs it in a transaction of that database (with the handlers of other records) and stores the record's
         * completion in the same transaction, so that its writes there take effect exactly once, with the completion.
         * A failure, or a completion the partition's fence refuses, rolls its writes back. What it does elsewhere (a
         * call over HTTP, a message to a broker) is not undone and may happen again: a transaction that rolls back
         * for another record's sake runs the handler again. Needs the processor's
         * {@link dev.outbox.processing.OutboxProcessor.Builder#recordTransactions record transactions}. Default: false.
         */
        public Builder<T> transactional(boolean transactional) {
            this.transactional = transactional;
            return this;
        }

        public Builder<T> handler(OutboxEventHandler<T> handler) {
            this.handler = Objects.requireNonNull(handler, "handler must not be null");
            return this;
        }

        public HandlerRegistration<T> build() {
            if (handler == null) {
                throw new IllegalStateException("handler '" + id + "': handler(...) is required");
            }
            return new HandlerRegistration<>(this, handler);
        }
    }
}
