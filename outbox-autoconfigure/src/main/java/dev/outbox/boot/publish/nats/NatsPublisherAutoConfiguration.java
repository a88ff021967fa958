package dev.outbox.boot.publish.nats;

import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.publish.PublisherSettings;
import dev.outbox.nats.NatsOutboxPublisher;
import dev.outbox.events.EventMappings;
import dev.outbox.nats.NatsPermissionViolations;
import dev.outbox.nats.NatsSubjectRouter;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublisherRegistration;
import io.nats.client.Connection;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The NATS JetStream publisher, registered as a handler, when {@code outbox-nats} is on the class path and
 * {@code outbox.nats.enabled=true}. Each bean backs off when the application defines its own: the
 * {@link Connection}, the {@link NatsSubjectRouter} (instead of {@code outbox.nats.routes}), the
 * {@link NatsOutboxPublisher}, or the registration ({@code natsPublisherRegistration}).
 */
@AutoConfiguration(before = OutboxHandlersAutoConfiguration.class)
@ConditionalOnClass({NatsOutboxPublisher.class, Connection.class})
@ConditionalOnBooleanProperty("outbox.nats.enabled")
@EnableConfigurationProperties(NatsPublisherProperties.class)
public class NatsPublisherAutoConfiguration {

    private static final String PREFIX = "outbox.nats";

    /** Connects in the background when the server is not reachable yet: publishing waits, the application starts. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    Connection outboxNatsConnection(NatsPublisherProperties properties) throws IOException, InterruptedException {
        // the publisher learns of publishes the server refuses for lack of permission through this listener
        // without forced flushes the client writes what is queued in one go, not a socket write per publish
        Options.Builder options = new Options.Builder().servers(properties.url().split(","))
                .errorListener(new NatsPermissionViolations())
                .connectionName("outbox").maxReconnects(-1).dontForceFlushOnRequest();
        if (properties.token() != null) {
            options.token(properties.token().toCharArray());
        } else if (properties.username() != null) {
            options.userInfo(properties.username(),
                    properties.password() == null ? "" : properties.password());
        }
        return Nats.connectReconnectOnConnect(options.build());
    }

    @Bean
    @ConditionalOnMissingBean
    NatsOutboxPublisher natsOutboxPublisher(Connection connection, NatsPublisherProperties properties,
            ObjectProvider<NatsSubjectRouter> router, ObjectProvider<EventMappings> events) {
        OutboxRouter<String> subjects = PublisherSettings.routing(PREFIX, "NATS subject", router.getIfAvailable(),
                properties.routes(), properties.defaultSubject(), "default-subject", events.getIfAvailable(),
                (target, record) -> target);
        return NatsOutboxPublisher.builder(connection)
                .router(subjects)
                .headers(PublisherSettings.headers(properties.contentType(), properties.cloudEvents()))
                .expectedStream(properties.expectedStream())
                .publishTimeout(properties.publishTimeout())
                .acknowledgementTimeout(properties.acknowledgementTimeout())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "natsPublisherRegistration")
    PublisherRegistration natsPublisherRegistration(NatsOutboxPublisher publisher,
            NatsPublisherProperties properties) {
        return PublisherSettings.registration(properties.handlerId(), publisher, properties.eventTypes());
    }
}
