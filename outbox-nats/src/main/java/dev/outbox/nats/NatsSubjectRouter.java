package dev.outbox.nats;

import dev.outbox.publish.OutboxRouter;

/**
 * Chooses the NATS subject of a record, in code. As a Spring bean it replaces the {@code outbox.nats.routes}
 * properties:
 *
 * <pre>{@code
 * @Bean
 * NatsSubjectRouter subjects() {
 *     return record -> "orders." + record.getEventType();
 * }
 * }</pre>
 */
@FunctionalInterface
public interface NatsSubjectRouter extends OutboxRouter<String> {
}
