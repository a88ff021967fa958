package dev.outbox.boot.publish.kafka;

import dev.outbox.boot.publish.CloudEventsProperties;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Publishing outbox records to Apache Kafka, under {@code outbox.kafka.*}. Needs {@code outbox-kafka} on the class path
 * and {@code outbox.kafka.enabled=true}. Where the application has Spring Kafka, the producer starts from
 * {@code spring.kafka.*} (bootstrap servers, security, {@code spring.kafka.producer.*}); without it, from
 * {@code outbox.kafka.bootstrap-servers}.
 *
 * @param enabled publish to Kafka
 * @param bootstrapServers the cluster, when the application has no Spring Kafka; ignored otherwise
 * @param producer producer settings on top of the application's, e.g.
 *     {@code outbox.kafka.producer.compression.type=zstd}; idempotence, {@code acks=all}, the serializers and no
 *     transactional id are the outbox's and cannot be changed
 * @param handlerId the publisher's handler id: its records are stored under it, with their own status and retries;
 *     change it only when none of its records is pending
 * @param eventTypes the event types published; empty (the default) publishes all
 * @param routes topic by event type, e.g. {@code outbox.kafka.routes.OrderPlaced=orders}
 * @param defaultTopic the topic of event types without a route; without one, such records fail at once
 * @param acknowledgementTimeout how long the engine waits for the producer's verdict before it retries the record;
 *     above the producer's {@code delivery.timeout.ms} (20 s unless set)
 * @param contentType the {@code content-type} header of every message
 * @param cloudEvents CloudEvents attributes on every message
 */
@ConfigurationProperties("outbox.kafka")
public record KafkaPublisherProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("localhost:9092") List<String> bootstrapServers,
        @DefaultValue Map<String, String> producer,
        @DefaultValue("kafka") String handlerId,
        @DefaultValue Set<String> eventTypes,
        @DefaultValue Map<String, String> routes,
        @Nullable String defaultTopic,
        @DefaultValue("30s") Duration acknowledgementTimeout,
        @DefaultValue("application/json") String contentType,
        @DefaultValue @NestedConfigurationProperty CloudEventsProperties cloudEvents) {
}
