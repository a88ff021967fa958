package dev.outbox.boot.publish;

import dev.outbox.OutboxRecord;
import dev.outbox.events.EventMappings;
import dev.outbox.events.ExternalizedEvents;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublisherRegistration;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
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
     * Where records go: the target of Spring Modulith's {@code @Externalized} events when the application has them,
     * else the application's router bean, else the routes by event type and the default.
     *
     * @param externalizedDestination the destination of an {@code @Externalized} target for a record
     * @throws IllegalArgumentException when there is no router bean, no route, no default and no externalized events
     *     support: the publisher could publish nothing, so the application must not start as if it could
     */
    public static <D> OutboxRouter<D> routing(String prefix, String kind, @Nullable OutboxRouter<D> routerBean,
            Map<String, D> routes, @Nullable D defaultDestination, String defaultProperty,
            @Nullable EventMappings events, BiFunction<String, OutboxRecord, D> externalizedDestination) {
        Optional<ExternalizedEvents> externalized = events == null ? Optional.empty() : events.externalized();
        OutboxRouter<D> others = routerBean;
        if (others == null) {
            if (routes.isEmpty() && defaultDestination == null && externalized.isEmpty()) {
                throw new IllegalArgumentException(prefix + ".enabled is true but no " + kind + " is configured: set "
                        + prefix + ".routes.<event type> or " + prefix + "." + defaultProperty
                        + ", or define a router bean");
            }
            others = EventTypeRouting.<D>builder(kind).routes(routes).defaultDestination(defaultDestination)
                    .hint("add it to " + prefix + ".routes or set " + prefix + "." + defaultProperty).build();
        }
        return externalized.isPresent() ? externalized.get().routing(externalizedDestination, others) : others;
    }

    /** The publisher as a handler: its id, and the event types it takes (all of them when empty). */
    public static PublisherRegistration registration(String handlerId, OutboxPublisher publisher,
            Set<String> eventTypes) {
        return PublisherRegistration.builder(handlerId, publisher)
                .eventTypes(eventTypes.isEmpty() ? null : eventTypes).build();
    }
}
