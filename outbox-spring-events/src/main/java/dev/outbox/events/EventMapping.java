package dev.outbox.events;

import java.util.Objects;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;

/**
 * How events of one class become outbox records: the aggregate id each event gives, and the event type. Immutable.
 */
public final class EventMapping {

    private final Class<?> eventClass;
    private final String source;
    private final Function<Object, @Nullable Object> aggregateId;
    private final @Nullable String eventType;

    EventMapping(Class<?> eventClass, String source, Function<Object, @Nullable Object> aggregateId,
            @Nullable String eventType) {
        this.eventClass = eventClass;
        this.source = source;
        this.aggregateId = aggregateId;
        this.eventType = eventType;
    }

    public Class<?> eventClass() {
        return eventClass;
    }

    /** Where the mapping comes from, as the user wrote it, e.g. {@code @OutboxEvent(aggregateId = "orderId")}. */
    public String source() {
        return source;
    }

    /** The event type, or null for the outbox's own (by default the class's simple name). */
    public @Nullable String eventType() {
        return eventType;
    }

    /**
     * The aggregate id of {@code event}.
     *
     * @throws IllegalArgumentException naming the event class and the expression when the expression fails or gives
     *     null or a blank text
     */
    public String aggregateIdOf(Object event) {
        Object value;
        try {
            value = aggregateId.apply(event);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException(eventClass.getName() + ": the aggregate id of " + source
                    + " could not be evaluated: " + e.getMessage(), e);
        }
        String id = value == null ? null : value.toString();
        if (id == null || id.isBlank()) {
            throw new IllegalArgumentException(eventClass.getName() + ": the aggregate id of " + source + " is "
                    + (id == null ? "null" : "blank") + "; an outbox record needs one");
        }
        return id;
    }

    @Override
    public String toString() {
        return eventClass.getName() + " " + source + (eventType == null ? "" : " as " + eventType);
    }

    static EventMapping of(Class<?> eventClass, String source, Function<Object, @Nullable Object> aggregateId,
            @Nullable String eventType) {
        return new EventMapping(Objects.requireNonNull(eventClass), Objects.requireNonNull(source),
                Objects.requireNonNull(aggregateId), eventType);
    }
}
