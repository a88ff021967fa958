package dev.outbox.rabbitmq;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a record goes on RabbitMQ: an exchange and a routing key.
 *
 * @param exchange the exchange; {@code ""} is the default exchange, which routes by queue name
 * @param routingKey the routing key; {@code null} routes by the record's event type
 */
public record RabbitDestination(String exchange, @Nullable String routingKey) {

    public RabbitDestination {
        Objects.requireNonNull(exchange, "exchange");
    }

    public static RabbitDestination of(String exchange, String routingKey) {
        return new RabbitDestination(exchange, Objects.requireNonNull(routingKey, "routingKey"));
    }

    /** To {@code exchange}, with the record's event type as the routing key. */
    public static RabbitDestination byEventType(String exchange) {
        return new RabbitDestination(exchange, null);
    }

    @Override
    public String toString() {
        return "exchange '" + exchange + "' with routing key "
                + (routingKey == null ? "<event type>" : "'" + routingKey + "'");
    }
}
