package dev.outbox.boot.publish.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.kafka.KafkaOutboxPublisher;
import dev.outbox.kafka.KafkaTopicRouter;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.kafka.OutboxKafkaProducers;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * What {@code outbox.kafka.*} configures, from {@code spring.kafka.*} where the application has Spring Kafka and
 * without it, and how its beans back off. The clients connect lazily: no broker is needed here.
 */
class KafkaPublisherAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(KafkaAutoConfiguration.class,
                    KafkaPublisherAutoConfiguration.class));

    @Test
    void offUnlessEnabled() {
        runner.withPropertyValues("outbox.kafka.default-topic=orders").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(KafkaOutboxPublisher.class);
            assertThat(context).doesNotHaveBean(PublisherRegistration.class);
            assertThat(context).doesNotHaveBean("outboxKafkaProducer");
        });
    }

    @Test
    void withSpringKafkaTheProducerStartsFromSpringKafkasSettingsWithTheOutboxsOnTop() {
        runner.withPropertyValues("spring.kafka.bootstrap-servers=127.0.0.1:19091,127.0.0.1:19092",
                "spring.kafka.client-id=order-service", "spring.kafka.producer.acks=1",
                "spring.kafka.producer.properties.linger.ms=7", "spring.kafka.producer.transaction-id-prefix=tx-",
                "outbox.kafka.enabled=true", "outbox.kafka.producer.compression.type=zstd",
                "outbox.kafka.bootstrap-servers=127.0.0.1:19094", "outbox.kafka.routes.OrderPlaced=orders")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkaClientSettings settings = context.getBean(KafkaClientSettings.class);
                    List<String> servers = List.of("127.0.0.1:19091", "127.0.0.1:19092");
                    assertThat(settings.producer()).containsEntry("bootstrap.servers", servers)
                            .containsEntry("client.id", "order-service").containsEntry("linger.ms", "7")
                            .containsEntry("compression.type", "zstd");
                    assertThat(settings.admin()).containsEntry("bootstrap.servers", servers);
                    assertThat(OutboxKafkaProducers.settings(settings.producer())).as("what the producer gets")
                            .containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                            .doesNotContainKey("transactional.id");
                    assertThat(context).hasBean("outboxKafkaProducer").hasBean("outboxKafkaAdmin");
                    assertThat(context.getBean(KafkaProperties.class)).isNotNull();
                });
    }

    @Test
    void withoutSpringKafkaTheProducerUsesTheOutboxsBootstrapServers() {
        runner.withClassLoader(new FilteredClassLoader(KafkaProperties.class))
                .withPropertyValues("outbox.kafka.enabled=true", "outbox.kafka.bootstrap-servers=127.0.0.1:19091",
                        "outbox.kafka.default-topic=orders")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkaClientSettings.class).producer())
                            .containsEntry("bootstrap.servers", "127.0.0.1:19091");
                    assertThat(context).hasSingleBean(KafkaOutboxPublisher.class);
                });
    }

    @Test
    void propertiesBindToThePublisherAndItsRegistration() {
        runner.withPropertyValues("outbox.kafka.enabled=true", "outbox.kafka.handler-id=orders-to-kafka",
                "outbox.kafka.event-types=OrderPlaced,OrderCancelled",
                "outbox.kafka.routes[com.shop.OrderPlaced]=orders",
                "outbox.kafka.default-topic=other", "outbox.kafka.acknowledgement-timeout=45s",
                "outbox.kafka.content-type=application/cbor", "outbox.kafka.cloud-events.source=/order-service")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    KafkaPublisherProperties properties = context.getBean(KafkaPublisherProperties.class);
                    assertThat(properties.routes()).containsEntry("com.shop.OrderPlaced", "orders");
                    assertThat(properties.acknowledgementTimeout()).isEqualTo(Duration.ofSeconds(45));
                    PublisherRegistration registration = context.getBean(PublisherRegistration.class);
                    assertThat(registration.getId()).isEqualTo("orders-to-kafka");
                    assertThat(registration.getEventTypes()).isEqualTo(Set.of("OrderPlaced", "OrderCancelled"));
                    assertThat(registration.getPublisher()).isSameAs(context.getBean(KafkaOutboxPublisher.class));
                    assertThat(context.getBean(KafkaOutboxPublisher.class).toString()).contains("orders", "other",
                            "application/cbor", "/order-service", "PT45S", "with topic lookup");
                });
    }

    @Test
    void withoutARouteOrADefaultTheApplicationDoesNotStart() {
        runner.withPropertyValues("outbox.kafka.enabled=true").run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageContaining(
                    "outbox.kafka.enabled is true but no Kafka topic is configured: set "
                            + "outbox.kafka.routes.<event type> or outbox.kafka.default-topic");
        });
    }

    @Test
    void theApplicationsRouterAndClientsWin() {
        runner.withPropertyValues("outbox.kafka.enabled=true").withUserConfiguration(OwnBeans.class)
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context.getBean(KafkaOutboxPublisher.class).toString()).contains("topics in code");
                    assertThat(context.getBean("outboxKafkaAdmin")).isSameAs(OwnBeans.ADMIN);
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {

        static final Admin ADMIN = Admin.create(java.util.Map.of("bootstrap.servers", "127.0.0.1:19093"));

        @Bean
        KafkaTopicRouter topics() {
            return new KafkaTopicRouter() {
                @Override
                public String destinationFor(OutboxRecord record) {
                    return "orders." + record.getEventType();
                }

                @Override
                public String toString() {
                    return "topics in code";
                }
            };
        }

        @Bean(destroyMethod = "")
        Admin outboxKafkaAdmin() {
            return ADMIN;
        }
    }
}
