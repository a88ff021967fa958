package dev.outbox.boot.publish.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.nats.NatsOutboxPublisher;
import dev.outbox.nats.NatsSubjectRouter;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** What {@code outbox.nats.*} configures, and how each bean backs off for the application's own. */
class NatsPublisherAutoConfigurationTest {

    private static String url;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(NatsPublisherAutoConfiguration.class));

    @BeforeAll
    static void findServer() {
        url = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
    }

    @Test
    void offUnlessEnabled() {
        runner.withPropertyValues("outbox.nats.default-subject=orders.all").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(NatsOutboxPublisher.class);
            assertThat(context).doesNotHaveBean(Connection.class);
            assertThat(context).doesNotHaveBean(PublisherRegistration.class);
        });
    }

    @Test
    void enabledItConnectsAndRegistersThePublisherAsAHandlerOfItsOwn() {
        runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=" + url,
                "outbox.nats.routes.OrderPlaced=orders.placed").run(context -> {
                    assertThat(context).hasNotFailed();
                    Connection connection = context.getBean(Connection.class);
                    assertThat(connection.getStatus()).isEqualTo(Connection.Status.CONNECTED);
                    assertThat(connection.getOptions().forceFlushOnRequest())
                            .as("queued publishes written together, not flushed one by one").isFalse();
                    PublisherRegistration registration = context.getBean(PublisherRegistration.class);
                    assertThat(registration.getId()).isEqualTo("nats");
                    assertThat(registration.getEventTypes()).as("all event types").isNull();
                    assertThat(registration.getPublisher()).isSameAs(context.getBean(NatsOutboxPublisher.class));
                    context.close();
                    assertThat(connection.getStatus()).as("closed with the context")
                            .isEqualTo(Connection.Status.CLOSED);
                });
    }

    @Test
    void propertiesBindToThePublisherAndItsRegistration() {
        runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=" + url,
                "outbox.nats.handler-id=orders-to-nats", "outbox.nats.event-types=OrderPlaced,OrderCancelled",
                "outbox.nats.routes[com.shop.OrderPlaced]=orders.placed", "outbox.nats.default-subject=orders.other",
                "outbox.nats.expected-stream=ORDERS", "outbox.nats.publish-timeout=3s",
                "outbox.nats.acknowledgement-timeout=7s", "outbox.nats.content-type=application/cbor",
                "outbox.nats.cloud-events.source=/order-service").run(context -> {
                    assertThat(context).hasNotFailed();
                    NatsPublisherProperties properties = context.getBean(NatsPublisherProperties.class);
                    assertThat(properties.routes()).containsEntry("com.shop.OrderPlaced", "orders.placed");
                    assertThat(properties.publishTimeout()).isEqualTo(Duration.ofSeconds(3));
                    assertThat(properties.cloudEvents().source()).isEqualTo("/order-service");
                    PublisherRegistration registration = context.getBean(PublisherRegistration.class);
                    assertThat(registration.getId()).isEqualTo("orders-to-nats");
                    assertThat(registration.getEventTypes()).isEqualTo(Set.of("OrderPlaced", "OrderCancelled"));
                    assertThat(context.getBean(NatsOutboxPublisher.class).toString())
                            .contains("orders.placed", "orders.other", "ORDERS", "application/cbor",
                                    "/order-service", "PT7S", "permission violations watched");
                });
    }

    @Test
    void withoutARouteOrADefaultTheApplicationDoesNotStart() {
        runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=" + url).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(
                    "outbox.nats.enabled is true but no NATS subject is configured: set "
                            + "outbox.nats.routes.<event type> or outbox.nats.default-subject");
        });
    }

    @Test
    void aSubjectRouterBeanReplacesTheRoutes() {
        runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=" + url)
                .withUserConfiguration(SubjectsInCode.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(NatsOutboxPublisher.class).toString()).contains("subjects in code");
                });
    }

    @Test
    void theApplicationsConnectionIsUsedAndLeftOpen() throws Exception {
        try (Connection own = Nats.connect(url)) {
            runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=nats://127.0.0.1:1",
                    "outbox.nats.default-subject=orders.all")
                    .withBean(Connection.class, () -> own, definition -> definition.setDestroyMethodName(""))
                    .run(context -> {
                        assertThat(context).hasNotFailed();
                        assertThat(context).getBean(Connection.class).isSameAs(own);
                    });
            assertThat(own.getStatus()).isEqualTo(Connection.Status.CONNECTED);
        }
    }

    @Test
    void theApplicationsPublisherAndRegistrationWin() {
        runner.withPropertyValues("outbox.nats.enabled=true", "outbox.nats.url=" + url)
                .withUserConfiguration(OwnRegistration.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).getBean(PublisherRegistration.class).extracting(PublisherRegistration::getId)
                            .isEqualTo("mine");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class SubjectsInCode {

        @Bean
        NatsSubjectRouter subjects() {
            return new NatsSubjectRouter() {
                @Override
                public String destinationFor(OutboxRecord record) {
                    return "orders." + record.getEventType();
                }

                @Override
                public String toString() {
                    return "subjects in code";
                }
            };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnRegistration {

        @Bean
        PublisherRegistration natsPublisherRegistration(NatsOutboxPublisher publisher) {
            return PublisherRegistration.of("mine", publisher);
        }

        @Bean
        NatsSubjectRouter subjects() {
            return record -> "orders.all";
        }
    }
}
