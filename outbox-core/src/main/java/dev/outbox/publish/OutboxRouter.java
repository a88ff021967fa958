package dev.outbox.publish;

import dev.outbox.OutboxRecord;

/**
 * Chooses where a record is published: a Kafka topic, a RabbitMQ exchange and routing key, a NATS subject. Define one
 * as a bean for routing in code; {@link EventTypeRouting} is the one the properties build.
 *
 * @param <D> the broker's destination type
 */
@FunctionalInterface
public interface OutboxRouter<D> {

    /**
     * The destination of {@code record}.
     *
     * @throws PublishException with {@link PublishException.Reason#NO_DESTINATION} when there is none: the record then
     *     fails at once, with the message as its error
     */
    D destinationFor(OutboxRecord record);
}
