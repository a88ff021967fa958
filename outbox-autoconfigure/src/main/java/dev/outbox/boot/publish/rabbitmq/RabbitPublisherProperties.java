package dev.outbox.boot.publish.rabbitmq;

import dev.outbox.boot.publish.CloudEventsProperties;
import dev.outbox.rabbitmq.RabbitDestination;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.util.unit.DataSize;

/**
 * Publishing outbox records to RabbitMQ, under {@code outbox.rabbitmq.*}. Needs {@code outbox-rabbitmq} on the class
 * path and {@code outbox.rabbitmq.enabled=true}; the connection is the application's ({@code spring.rabbitmq.*}); the
 * publisher takes confirms and returns on channels of its own, so it needs neither
 * {@code spring.rabbitmq.publisher-confirm-type} nor {@code spring.rabbitmq.publisher-returns}.
 *
 * @param enabled publish to RabbitMQ
 * @param handlerId the publisher's handler id: its records are stored under it, with their own status and retries;
 *     change it only when none of its records is pending
 * @param eventTypes the event types published; empty (the default) publishes all
 * @param routes exchange and routing key by event type, e.g. {@code outbox.rabbitmq.routes.OrderPlaced.exchange=orders}
 *     and {@code outbox.rabbitmq.routes.OrderPlaced.routing-key=order.placed}; without a routing key the event type
 *     is the routing key
 * @param defaultDestination the exchange and routing key of event types without a route; without one, such records
 *     fail at once
 * @param acknowledgementTimeout how long the engine waits for the broker's confirm before it retries the record
 * @param maxMessageSize the broker's {@code max_message_size}: a larger message fails at once, without being sent
 *     (else the broker refuses it by closing a channel other records share); not set by default
 * @param contentType the content type of every message
 * @param cloudEvents CloudEvents attributes on every message
 */
@ConfigurationProperties("outbox.rabbitmq")
public record RabbitPublisherProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("rabbitmq") String handlerId,
        @DefaultValue Set<String> eventTypes,
        @DefaultValue Map<String, RabbitDestination> routes,
        @Nullable RabbitDestination defaultDestination,
        @DefaultValue("30s") Duration acknowledgementTimeout,
        @Nullable DataSize maxMessageSize,
        @DefaultValue("application/json") String contentType,
        @DefaultValue @NestedConfigurationProperty CloudEventsProperties cloudEvents) {
}
