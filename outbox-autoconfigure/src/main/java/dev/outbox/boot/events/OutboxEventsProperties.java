package dev.outbox.boot.events;

import dev.outbox.events.OutsideTransaction;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Spring application events into the outbox, under {@code outbox.events.*}.
 *
 * @param enabled write events marked for the outbox ({@code @OutboxEvent}, {@code AggregateEvent}, Spring
 *     Modulith's {@code @Externalized}) as records when they are published
 * @param outsideTransaction such an event published outside a transaction: {@code fail} (the default) throws from
 *     {@code publishEvent}; {@code own-transaction} writes the record in a transaction of its own
 * @param localListeners whether the application's own listeners ({@code @EventListener},
 *     {@code @TransactionalEventListener}) still receive the events the outbox takes; {@code false} makes the outbox
 *     their only path (the context's event multicaster is then the outbox's)
 */
@ConfigurationProperties("outbox.events")
public record OutboxEventsProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("fail") OutsideTransaction outsideTransaction,
        @DefaultValue("true") boolean localListeners) {
}
