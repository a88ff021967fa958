package dev.outbox.boot.publish.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.rabbitmq.RabbitDestination;
import dev.outbox.rabbitmq.RabbitDestinationRouter;
import dev.outbox.rabbitmq.RabbitOutboxPublisher;
import dev.outbox.testkit.TestBrokers;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.amqp.autoconfigure.RabbitAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What {@code outbox.rabbitmq.*} configures on Spring Boot's RabbitMQ connection, and how its beans back off. */
class RabbitPublisherAutoConfigurationTest {

    private static String[] connection;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(RabbitAutoConfiguration.class,
                    RabbitPublisherAutoConfiguration.class));

    @BeforeAll
    static void findServer() {
        URI uri = URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672"));
        // Spring Boot's defaults otherwise: no publisher-confirm-type, no publisher-returns
        connection = new String[] {"spring.rabbitmq.host=" + uri.getHost(), "spring.rabbitmq.port=" + uri.getPort()};
    }

    @Test
    void offUnlessEnabled() {
        runner.withPropertyValues(connection).withPropertyValues("outbox.rabbitmq.default-destination.exchange=orders")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(RabbitOutboxPublisher.class);
                    assertThat(context).doesNotHaveBean(PublisherRegistration.class);
                });
    }

    @Test
    void propertiesBindToThePublisherAndItsRegistration() {
        runner.withPropertyValues(connection).withPropertyValues("outbox.rabbitmq.enabled=true",
                "outbox.rabbitmq.handler-id=orders-to-rabbit", "outbox.rabbitmq.event-types=OrderPlaced",
                "outbox.rabbitmq.routes.OrderPlaced.exchange=orders",
                "outbox.rabbitmq.routes.OrderPlaced.routing-key=order.placed",
                "outbox.rabbitmq.routes[com.shop.OrderCancelled].exchange=orders",
                "outbox.rabbitmq.default-destination.exchange=other",
                "outbox.rabbitmq.acknowledgement-timeout=7s", "outbox.rabbitmq.content-type=application/cbor",
                "outbox.rabbitmq.max-message-size=16MB",
                "outbox.rabbitmq.cloud-events.source=/order-service").run(context -> {
                    assertThat(context).hasNotFailed();
                    RabbitPublisherProperties properties = context.getBean(RabbitPublisherProperties.class);
                    assertThat(properties.routes()).containsEntry("OrderPlaced",
                            RabbitDestination.of("orders", "order.placed"))
                            .containsEntry("com.shop.OrderCancelled", RabbitDestination.byEventType("orders"));
                    assertThat(properties.defaultDestination()).isEqualTo(RabbitDestination.byEventType("other"));
                    assertThat(properties.acknowledgementTimeout()).isEqualTo(Duration.ofSeconds(7));
                    PublisherRegistration registration = context.getBean(PublisherRegistration.class);
                    assertThat(registration.getId()).isEqualTo("orders-to-rabbit");
                    assertThat(registration.getEventTypes()).isEqualTo(Set.of("OrderPlaced"));
                    assertThat(registration.getPublisher()).isSameAs(context.getBean(RabbitOutboxPublisher.class));
                    assertThat(context.getBean(RabbitOutboxPublisher.class).toString())
                            .contains("exchange 'orders' with routing key 'order.placed'",
                                    "default exchange 'other' with routing key <event type>", "application/cbor",
                                    "/order-service", "PT7S", "maxMessageSize=16777216");
                });
    }

    @Test
    void theContextClosesThePublishersChannels() throws Exception {
        AtomicReference<RabbitOutboxPublisher> publisher = new AtomicReference<>();
        // amq.topic: an exchange every broker has; no queue is bound for this routing key, so the message comes back
        runner.withPropertyValues(connection).withPropertyValues("outbox.rabbitmq.enabled=true",
                "outbox.rabbitmq.default-destination.exchange=amq.topic").run(context -> {
                    assertThat(context).hasNotFailed();
                    publisher.set(context.getBean(RabbitOutboxPublisher.class));
                    assertThat(publishOne(publisher.get())).failsWithin(Duration.ofSeconds(60))
                            .withThrowableThat().withMessageContaining("returned by the broker");
                });
        assertThat(publishOne(publisher.get())).as("after the context closed").failsWithin(Duration.ZERO)
                .withThrowableThat().withMessageContaining("not sent: the publisher is closed");
    }

    private static CompletableFuture<?> publishOne(RabbitOutboxPublisher publisher) {
        OutboxRecord record = OutboxRecord.builder().aggregateId("a").eventType("outbox-test-nobody-listens")
                .payload("{}").build(Clock.systemUTC());
        CompletableFuture<?> confirmed = publisher.publish(record).toCompletableFuture();
        publisher.flush();
        return confirmed;
    }

    @Test
    void withoutARouteOrADefaultTheApplicationDoesNotStart() {
        runner.withPropertyValues(connection).withPropertyValues("outbox.rabbitmq.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(
                    "outbox.rabbitmq.enabled is true but no RabbitMQ destination is configured: set "
                            + "outbox.rabbitmq.routes.<event type> or outbox.rabbitmq.default-destination.exchange");
        });
    }

    @Test
    void aDestinationRouterBeanReplacesTheRoutes() {
        runner.withPropertyValues(connection).withPropertyValues("outbox.rabbitmq.enabled=true")
                .withUserConfiguration(DestinationsInCode.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(RabbitOutboxPublisher.class).toString())
                            .contains("destinations in code");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class DestinationsInCode {

        @Bean
        RabbitDestinationRouter destinations() {
            return new RabbitDestinationRouter() {
                @Override
                public RabbitDestination destinationFor(dev.outbox.OutboxRecord record) {
                    return RabbitDestination.of("orders", record.getEventType());
                }

                @Override
                public String toString() {
                    return "destinations in code";
                }
            };
        }
    }
}
