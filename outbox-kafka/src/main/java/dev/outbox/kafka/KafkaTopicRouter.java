package dev.outbox.kafka;

import dev.outbox.publish.OutboxRouter;

/**
 * Chooses the Kafka topic of a record, in code. As a Spring bean it replaces the {@code outbox.kafka.routes}
 * properties:
 *
 * <pre>{@code
 * @Bean
 * KafkaTopicRouter topics() {
 *     return record -> "orders." + record.getEventType();
 * }
 * }</pre>
 */
@FunctionalInterface
public interface KafkaTopicRouter extends OutboxRouter<String> {
}
