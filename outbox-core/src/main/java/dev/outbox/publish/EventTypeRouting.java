package dev.outbox.publish;

import dev.outbox.OutboxRecord;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Routes by event type: a destination per event type, and a default for the others. Immutable; build with
 * {@link #builder(String)}.
 *
 * <pre>{@code
 * EventTypeRouting<String> topics = EventTypeRouting.<String>builder("Kafka topic")
 *         .route("OrderPlaced", "orders")
 *         .defaultDestination("events")
 *         .build();
 * }</pre>
 *
 * @param <D> the broker's destination type
 */
public final class EventTypeRouting<D> implements OutboxRouter<D> {

    private final String kind;
    private final Map<String, D> byEventType;
    private final @Nullable D defaultDestination;
    private final String hint;

    private EventTypeRouting(Builder<D> builder) {
        this.kind = builder.kind;
        this.byEventType = Map.copyOf(builder.byEventType);
        this.defaultDestination = builder.defaultDestination;
        this.hint = builder.hint;
    }

    /** @param kind what a destination is, for error messages: "Kafka topic", "NATS subject" */
    public static <D> Builder<D> builder(String kind) {
        return new Builder<>(kind);
    }

    @Override
    public D destinationFor(OutboxRecord record) {
        D destination = byEventType.getOrDefault(record.getEventType(), defaultDestination);
        if (destination == null) {
            throw new PublishException(PublishException.Reason.NO_DESTINATION, "no " + kind + " for event type '"
                    + record.getEventType() + "' of record " + record.getId() + ": routes exist for "
                    + byEventType.keySet() + " and there is no default" + (hint.isEmpty() ? "" : "; " + hint));
        }
        return destination;
    }

    /** The destinations by event type, without the default. */
    public Map<String, D> routes() {
        return byEventType;
    }

    public @Nullable D defaultDestination() {
        return defaultDestination;
    }

    @Override
    public String toString() {
        return kind + "s " + byEventType + (defaultDestination == null ? "" : ", default " + defaultDestination);
    }

    /** Not thread-safe. */
    public static final class Builder<D> {

        private final String kind;
        private final Map<String, D> byEventType = new LinkedHashMap<>();
        private @Nullable D defaultDestination;
        private String hint = "";

        private Builder(String kind) {
            this.kind = Objects.requireNonNull(kind, "kind");
        }

        public Builder<D> route(String eventType, D destination) {
            Objects.requireNonNull(eventType, "eventType");
            Objects.requireNonNull(destination, "destination of event type '" + eventType + "'");
            if (eventType.isBlank()) {
                throw new IllegalArgumentException("eventType of a " + kind + " route must not be blank");
            }
            byEventType.put(eventType, destination);
            return this;
        }

        public Builder<D> routes(Map<String, ? extends D> routes) {
            routes.forEach(this::route);
            return this;
        }

        /** Where event types without a route of their own go; without it, they fail with NO_DESTINATION. */
        public Builder<D> defaultDestination(@Nullable D defaultDestination) {
            this.defaultDestination = defaultDestination;
            return this;
        }

        /** Appended to the error for a missing destination, e.g. the properties that configure routes. */
        public Builder<D> hint(String hint) {
            this.hint = Objects.requireNonNull(hint, "hint");
            return this;
        }

        public EventTypeRouting<D> build() {
            return new EventTypeRouting<>(this);
        }
    }
}
