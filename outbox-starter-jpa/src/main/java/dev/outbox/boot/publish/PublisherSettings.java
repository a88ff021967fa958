package dev.outbox.boot.publish;

import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublisherRegistration;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * Builds what every broker publisher takes from its {@code outbox.<broker>.*} properties, the same way for each.
 */
public final class PublisherSettings {

    private PublisherSettings() {
    }

    /** The message headers: the content type, and the CloudEvents attributes when a source is set. */
    public static OutboxMessageHeaders headers(String contentType, CloudEventsProperties cloudEvents) {
        return OutboxMessageHeaders.builder().contentType(contentType).cloudEvents(cloudEvents.source()).build();
    }

    /**
     * The routes by event type, and the default.
     *
     * @throws IllegalArgumentException when there is neither a route nor a default: the publisher could publish
     *     nothing, so the application must not start as if it could
     */
    public static <D> EventTypeRouting<D> routing(String prefix, String kind, Map<String, D> routes,
            @Nullable D defaultDestination, String defaultProperty) {
        if (routes.isEmpty() && defaultDestination == null) {
            throw new IllegalArgumentException(prefix + ".enabled is true but no " + kind + " is configured: set "
                    + prefix + ".routes.<event type> or " + prefix + "." + defaultProperty
                    + ", or define a router bean");
        }
        return EventTypeRouting.<D>builder(kind).routes(routes).defaultDestination(defaultDestination)
                .hint("add it to " + prefix + ".routes or set " + prefix + "." + defaultProperty).build();
    }

    /** The publisher as a handler: its id, and the event types it takes (all of them when empty). */
    public static PublisherRegistration registration(String handlerId, OutboxPublisher publisher,
            Set<String> eventTypes) {
        return PublisherRegistration.builder(handlerId, publisher)
                .eventTypes(eventTypes.isEmpty() ? null : eventTypes).build();
    }
}
