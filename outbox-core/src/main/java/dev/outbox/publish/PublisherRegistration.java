package dev.outbox.publish;

import dev.outbox.OutboxFallbackHandler;
import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.retry.OutboxRetryPolicy;
import java.util.Collection;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.jspecify.annotations.Nullable;

/**
 * A publisher registered as a handler: its stable id, the event types it takes (all of them by default), and
 * optionally a retry policy and a fallback of its own. Each record it takes is stored for it alone, with its own
 * status and retries, so a failing broker neither blocks nor re-runs the application's other handlers. Immutable;
 * build with {@link #builder(String, OutboxPublisher)}.
 *
 * <pre>{@code
 * PublisherRegistration.builder("kafka", kafkaPublisher)
 *         .eventTypes(Set.of("OrderPlaced", "OrderShipped"))
 *         .retryPolicy(OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofMinutes(5)))
 *         .build();
 * }</pre>
 */
public final class PublisherRegistration {

    private final String id;
    private final OutboxPublisher publisher;
    private final @Nullable Set<String> eventTypes;
    private final @Nullable OutboxRetryPolicy retryPolicy;
    private final @Nullable OutboxFallbackHandler fallback;

    private PublisherRegistration(Builder builder) {
        this.id = builder.id;
        this.publisher = builder.publisher;
        this.eventTypes = builder.eventTypes;
        this.retryPolicy = builder.retryPolicy;
        this.fallback = builder.fallback;
    }

    /**
     * @param id the publisher's stable handler id, stored with each of its records: renaming it orphans them. Letters,
     *     digits, '.', '_', ':' and '-', at most 255 characters
     */
    public static Builder builder(String id, OutboxPublisher publisher) {
        return new Builder(id, publisher);
    }

    /** A publisher of every event type, with the default retry policy and no fallback. */
    public static PublisherRegistration of(String id, OutboxPublisher publisher) {
        return builder(id, publisher).build();
    }

    public String getId() {
        return id;
    }

    public OutboxPublisher getPublisher() {
        return publisher;
    }

    /** Whether this publisher takes records of {@code eventType}. */
    public boolean takes(String eventType) {
        return eventTypes == null || eventTypes.contains(eventType);
    }

    /** The event types it takes; null for all of them. */
    public @Nullable Set<String> getEventTypes() {
        return eventTypes;
    }

    /** Null: the policy the processing engine was configured with ({@code outbox.retry.*}). */
    public @Nullable OutboxRetryPolicy getRetryPolicy() {
        return retryPolicy;
    }

    public @Nullable OutboxFallbackHandler getFallback() {
        return fallback;
    }

    @Override
    public String toString() {
        return "PublisherRegistration[id=" + id + ", publisher=" + publisher + ", eventTypes="
                + (eventTypes == null ? "all" : new TreeSet<>(eventTypes))
                + (retryPolicy == null ? "" : ", retryPolicy=" + retryPolicy)
                + (fallback == null ? "" : ", with fallback") + "]";
    }

    /** Not thread-safe. */
    public static final class Builder {

        private final String id;
        private final OutboxPublisher publisher;
        private @Nullable Set<String> eventTypes;
        private @Nullable OutboxRetryPolicy retryPolicy;
        private @Nullable OutboxFallbackHandler fallback;

        private Builder(String id, OutboxPublisher publisher) {
            this.id = Checks.handlerId(id, OutboxRecord.MAX_HANDLER_ID_LENGTH);
            this.publisher = Objects.requireNonNull(publisher, "publisher must not be null");
        }

        /** Only these event types; null or never called: every event type. */
        public Builder eventTypes(@Nullable Collection<String> eventTypes) {
            if (eventTypes == null) {
                this.eventTypes = null;
                return this;
            }
            if (eventTypes.isEmpty()) {
                throw new IllegalArgumentException("eventTypes of publisher '" + id + "' must not be empty; "
                        + "leave them unset for every event type");
            }
            for (String eventType : eventTypes) {
                if (eventType == null || eventType.isBlank()) {
                    throw new IllegalArgumentException("eventTypes of publisher '" + id + "' must not hold a blank "
                            + "event type");
                }
            }
            this.eventTypes = Set.copyOf(eventTypes);
            return this;
        }

        /** A retry policy for this publisher's records only; it may bound the retries with its own maximum. */
        public Builder retryPolicy(@Nullable OutboxRetryPolicy retryPolicy) {
            this.retryPolicy = retryPolicy;
            return this;
        }

        /** Called when a record of this publisher has failed for good; see {@link OutboxFallbackHandler}. */
        public Builder fallback(@Nullable OutboxFallbackHandler fallback) {
            this.fallback = fallback;
            return this;
        }

        public PublisherRegistration build() {
            return new PublisherRegistration(this);
        }
    }
}
