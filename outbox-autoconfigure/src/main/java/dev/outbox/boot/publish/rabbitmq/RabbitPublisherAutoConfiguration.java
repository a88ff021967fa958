package dev.outbox.boot.publish.rabbitmq;

import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.publish.PublisherSettings;
import dev.outbox.events.EventMappings;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.rabbitmq.RabbitDestination;
import dev.outbox.rabbitmq.RabbitDestinationRouter;
import dev.outbox.rabbitmq.RabbitOutboxPublisher;
import org.springframework.amqp.rabbit.connection.ConnectionFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The RabbitMQ publisher, registered as a handler, when {@code outbox-rabbitmq} is on the class path and
 * {@code outbox.rabbitmq.enabled=true}. It publishes on channels of its own, with confirms and returns of its own, on
 * the connection of the application's {@link ConnectionFactory} (Spring Boot's, from {@code spring.rabbitmq.*}, as it
 * is: {@code spring.rabbitmq.publisher-confirm-type} and {@code publisher-returns} do not matter to it), and closes
 * those channels when the context closes (the bean's inferred destroy method, {@code close()}). Each bean backs off
 * when the application defines its own: the {@link RabbitDestinationRouter} (instead of
 * {@code outbox.rabbitmq.routes}), the {@link RabbitOutboxPublisher} (on a connection factory of its own, say), or the
 * registration ({@code rabbitPublisherRegistration}).
 */
@AutoConfiguration(before = OutboxHandlersAutoConfiguration.class,
        afterName = "org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration")
@ConditionalOnClass({RabbitOutboxPublisher.class, ConnectionFactory.class})
@ConditionalOnBooleanProperty("outbox.rabbitmq.enabled")
@EnableConfigurationProperties(RabbitPublisherProperties.class)
public class RabbitPublisherAutoConfiguration {

    private static final String PREFIX = "outbox.rabbitmq";

    @Bean
    @ConditionalOnMissingBean
    RabbitOutboxPublisher rabbitOutboxPublisher(ConnectionFactory connectionFactory,
            RabbitPublisherProperties properties, ObjectProvider<RabbitDestinationRouter> router,
            ObjectProvider<EventMappings> events) {
        // an @Externalized target is the exchange, and its key (the aggregate id) the routing key, as in Modulith
        OutboxRouter<RabbitDestination> destinations = PublisherSettings.routing(PREFIX, "RabbitMQ destination",
                router.getIfAvailable(), properties.routes(), properties.defaultDestination(),
                "default-destination.exchange", events.getIfAvailable(),
                (target, record) -> RabbitDestination.of(target, record.getAggregateId()));
        RabbitOutboxPublisher.Builder publisher = RabbitOutboxPublisher.builder(connectionFactory)
                .router(destinations)
                .headers(PublisherSettings.headers(properties.contentType(), properties.cloudEvents()))
                .acknowledgementTimeout(properties.acknowledgementTimeout());
        if (properties.maxMessageSize() != null) {
            publisher.maxMessageSize(properties.maxMessageSize().toBytes());
        }
        return publisher.build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "rabbitPublisherRegistration")
    PublisherRegistration rabbitPublisherRegistration(RabbitOutboxPublisher publisher,
            RabbitPublisherProperties properties) {
        return PublisherSettings.registration(properties.handlerId(), publisher, properties.eventTypes());
    }
}
