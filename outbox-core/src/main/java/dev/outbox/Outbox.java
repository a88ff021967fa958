package dev.outbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * The write façade: serializes an event and saves it as an outbox record in the caller's transaction. When several
 * typed handlers subscribe to the event type, one record per handler is saved and the first handler's is returned (see
 * {@link dev.outbox.handler.OutboxHandlers}).
 *
 * <pre>{@code
 * @Transactional
 * public void placeOrder(Order order) {
 *     orders.save(order);
 *     outbox.schedule(new OrderPlaced(order.id(), order.total()), order.id());
 * }
 * }</pre>
 */
public interface Outbox {

    /** Saves {@code event} for {@code aggregateId}, with the event type given by the configured resolver. */
    OutboxRecord schedule(Object event, String aggregateId);

    /** Saves {@code event} for {@code aggregateId} under an explicit event type. */
    OutboxRecord schedule(Object event, String aggregateId, String eventType);

    /**
     * Saves {@code event} for {@code aggregateId}, not to be processed before {@code availableAt}. Later records of
     * the same aggregate wait behind it, so per-aggregate order holds; other aggregates are not affected.
     */
    OutboxRecord scheduleAt(Object event, String aggregateId, Instant availableAt);

    /** As {@link #scheduleAt(Object, String, Instant)}, {@code delay} after now; a negative delay is refused. */
    OutboxRecord scheduleAfter(Object event, String aggregateId, Duration delay);

    /**
     * Whether a record scheduled now joins a transaction of this outbox's database: false when no transaction is open
     * there, whatever transactions other resources have open.
     */
    default boolean isTransactionActive() {
        return true;
    }

    static Builder builder() {
        return new Builder();
    }

    /** Assembles an {@link Outbox}. Repository and serializer are required. */
    final class Builder {

        private @Nullable OutboxRecordRepository repository;
        private @Nullable PayloadSerializer serializer;
        private Clock clock = Clock.systemUTC();
        private int maxPayloadBytes = OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES;
        private Function<Object, String> eventTypeResolver = event -> event.getClass().getSimpleName();

        private Builder() {
        }

        public Builder repository(OutboxRecordRepository repository) {
            this.repository = Objects.requireNonNull(repository, "repository");
            return this;
        }

        public Builder serializer(PayloadSerializer serializer) {
            this.serializer = Objects.requireNonNull(serializer, "serializer");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Payload limit in UTF-8 bytes; default {@value OutboxRecord#DEFAULT_MAX_PAYLOAD_BYTES}. */
        public Builder maxPayloadBytes(int maxPayloadBytes) {
            this.maxPayloadBytes = OutboxRecord.checkPayloadLimit(maxPayloadBytes);
            return this;
        }

        /** Derives the event type from the event; default: the simple class name. */
        public Builder eventTypeResolver(Function<Object, String> eventTypeResolver) {
            this.eventTypeResolver = Objects.requireNonNull(eventTypeResolver, "eventTypeResolver");
            return this;
        }

        public Outbox build() {
            if (repository == null) {
                throw new IllegalStateException("Outbox.builder(): repository is required");
            }
            if (serializer == null) {
                throw new IllegalStateException("Outbox.builder(): serializer is required");
            }
            return new DefaultOutbox(repository, serializer, clock, maxPayloadBytes, eventTypeResolver);
        }
    }
}
