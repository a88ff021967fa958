package dev.outbox.boot.publish.nats;

import dev.outbox.boot.publish.CloudEventsProperties;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.NestedConfigurationProperty;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Publishing outbox records to NATS JetStream, under {@code outbox.nats.*}. Needs {@code outbox-nats} on the class
 * path and {@code outbox.nats.enabled=true}.
 *
 * @param enabled publish to NATS JetStream
 * @param url the NATS server(s) of the outbox's own connection, comma-separated; not used when the application has a
 *     {@code io.nats.client.Connection} bean
 * @param username user of the outbox's own connection
 * @param password password of that user
 * @param token authentication token of the outbox's own connection, instead of a user and password
 * @param handlerId the publisher's handler id: its records are stored under it, with their own status and retries;
 *     change it only when none of its records is pending
 * @param eventTypes the event types published; empty (the default) publishes all
 * @param routes subject by event type, e.g. {@code outbox.nats.routes.OrderPlaced=orders.placed}; an event type with
 *     dots goes in brackets: {@code outbox.nats.routes[com.shop.OrderPlaced]=…}
 * @param defaultSubject the subject of event types without a route; without one, such records fail at once
 * @param expectedStream the stream that must store the subjects; a message that another stream (or none) would store
 *     fails instead
 * @param publishTimeout how long the client waits for the stream's acknowledgement; below the acknowledgement timeout
 * @param acknowledgementTimeout how long the engine waits for an acknowledgement before it retries the record
 * @param contentType the {@code content-type} header of every message
 * @param cloudEvents CloudEvents attributes on every message
 */
@ConfigurationProperties("outbox.nats")
public record NatsPublisherProperties(
        @DefaultValue("false") boolean enabled,
        @DefaultValue("nats://127.0.0.1:4222") String url,
        @Nullable String username,
        @Nullable String password,
        @Nullable String token,
        @DefaultValue("nats") String handlerId,
        @DefaultValue Set<String> eventTypes,
        @DefaultValue Map<String, String> routes,
        @Nullable String defaultSubject,
        @Nullable String expectedStream,
        @DefaultValue("10s") Duration publishTimeout,
        @DefaultValue("30s") Duration acknowledgementTimeout,
        @DefaultValue("application/json") String contentType,
        @DefaultValue @NestedConfigurationProperty CloudEventsProperties cloudEvents) {
}
