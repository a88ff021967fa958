package dev.outbox.boot.publish.kafka;

import static dev.outbox.boot.testing.InJvmKafkaBroker.header;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.boot.publish.PublishingApplication;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.testing.InJvmKafkaBroker;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application on H2 with Spring Kafka and docs/publishing.md's {@code spring.kafka.*} and
 * {@code outbox.kafka.*} properties, against an in-JVM KRaft broker: records written in a business transaction reach
 * their topics keyed by aggregate, with their headers, once each and in order, and are completed; a rolled-back
 * transaction publishes nothing. Its topics are renamed to names of this test's own.
 */
class KafkaPublishingApplicationTest extends DatabasePerTestClass {

    private InJvmKafkaBroker broker;
    private String orders;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void startBroker() {
        orders = "orders-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        broker = InJvmKafkaBroker.start(new NewTopic(orders, 3, (short) 1), new NewTopic(orders + "-other", 1,
                (short) 1));
    }

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void theReadmesPropertiesPublishEveryCommittedRecordToItsTopicKeyedByAggregate() {
        List<String> overrides = new ArrayList<>(dataSourceProperties());
        overrides.add("spring.kafka.bootstrap-servers=" + broker.bootstrapServers());
        try (ConfigurableApplicationContext app = PublishingApplication.run(PublishingApplication.readmeProperties(
                "outbox.kafka.enabled", value -> value.replace("orders", orders), overrides))) {
            List<OutboxRecord> written = PublishingApplication.writeOrdersAndAwaitPublished(app);

            List<ConsumerRecord<String, byte[]>> messages = broker.readAll(orders);
            List<ConsumerRecord<String, byte[]>> others = broker.readAll(orders + "-other");
            List<ConsumerRecord<String, byte[]>> all = new ArrayList<>(messages);
            all.addAll(others);
            PublishingApplication.assertDeliveredOnceInOrder(written, all.stream()
                    .map(message -> new DeliveryCheck.Consumed(header(message, OutboxMessageHeaders.RECORD_ID),
                            message.key(), Long.parseLong(header(message, OutboxMessageHeaders.SEQUENCE))))
                    .toList());
            assertThat(messages).hasSize(101);
            assertThat(others).singleElement().satisfies(message -> {
                assertThat(message.key()).isEqualTo("order-2");
                assertThat(header(message, OutboxMessageHeaders.EVENT_TYPE)).isEqualTo("OrderShipped");
                assertThat(header(message, "ce_source")).isEqualTo("/order-service");
                assertThat(new String(message.value(), StandardCharsets.UTF_8)).isEqualTo("{\"order\":2}");
            });
        }
    }
}
