package dev.outbox.rabbitmq;

import dev.outbox.publish.OutboxRouter;

/**
 * Chooses the exchange and routing key of a record, in code. As a Spring bean it replaces the
 * {@code outbox.rabbitmq.routes} properties:
 *
 * <pre>{@code
 * @Bean
 * RabbitDestinationRouter destinations() {
 *     return record -> RabbitDestination.of("orders", record.getEventType() + "." + record.getAggregateId());
 * }
 * }</pre>
 */
@FunctionalInterface
public interface RabbitDestinationRouter extends OutboxRouter<RabbitDestination> {
}
