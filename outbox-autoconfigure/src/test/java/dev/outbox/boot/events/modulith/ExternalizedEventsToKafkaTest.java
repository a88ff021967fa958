package dev.outbox.boot.events.modulith;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.events.modulith.orders.OrderManagement;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.testing.InJvmKafkaBroker;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.publish.OutboxMessageHeaders;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * Spring Modulith's {@code @Externalized} events reach Kafka through the outbox: the target names the topic, the key
 * expression gives the message key and the aggregate id, and no outbox route is configured. The broker is this test
 * class's own, in its JVM, so the annotation's fixed topic name is too.
 */
class ExternalizedEventsToKafkaTest extends DatabasePerTestClass {

    private static final String TOPIC = "order-confirmations";
    private static final Duration DEADLINE = Duration.ofSeconds(60);

    private InJvmKafkaBroker broker;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void startBroker() {
        broker = InJvmKafkaBroker.start(new NewTopic(TOPIC, 3, (short) 1));
    }

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void anExternalizedEventIsDeliveredToItsTargetKeyedByTheAnnotationsKeyInOrder() {
        List<String> properties = new ArrayList<>(dataSourceProperties());
        properties.addAll(List.of("spring.kafka.bootstrap-servers=" + broker.bootstrapServers(),
                "outbox.kafka.enabled=true", "outbox.schema-initialization.enabled=true",
                "outbox.poll-interval=100ms", "spring.main.banner-mode=off"));
        try (ConfigurableApplicationContext app = new SpringApplicationBuilder(ModulithApplication.class)
                .web(WebApplicationType.NONE).properties(properties.toArray(String[]::new)).run()) {
            OrderManagement orders = app.getBean(OrderManagement.class);
            for (int order = 1; order <= 10; order++) {
                orders.confirm("order-" + order, 5);
            }
            assertThatThrownBy(() -> orders.confirmThenFail("order-99")).hasMessage("payment declined");

            OutboxRecordRepository records = app.getBean(OutboxRecordRepository.class);
            await().atMost(DEADLINE).until(() -> records.countByStatus(OutboxRecordStatus.COMPLETED) == 50);
            assertThat(records.countByStatus(OutboxRecordStatus.NEW)).isZero();
            assertThat(records.countByStatus(OutboxRecordStatus.FAILED)).isZero();
            List<OutboxRecord> order1 = records.findByAggregateId("order-1");
            assertThat(order1).hasSize(5).allSatisfy(record -> assertThat(record.getEventType())
                    .isEqualTo("OrderConfirmed"));
        }

        List<ConsumerRecord<String, byte[]>> messages = broker.readAll(TOPIC);
        assertThat(messages).hasSize(50);
        assertThat(messages).extracting(ConsumerRecord::key).doesNotContain("order-99");
        for (int order = 1; order <= 10; order++) {
            String key = "order-" + order;
            List<ConsumerRecord<String, byte[]>> ofOrder = messages.stream()
                    .filter(message -> message.key().equals(key)).toList();
            assertThat(ofOrder).as(key).hasSize(5);
            assertThat(ofOrder.stream().map(ConsumerRecord::partition).distinct()).as("one Kafka partition").hasSize(1);
            assertThat(ofOrder).extracting(InJvmKafkaBroker::value).as("in order").containsExactly(
                    line(key, 1), line(key, 2), line(key, 3), line(key, 4), line(key, 5));
            assertThat(ofOrder).allSatisfy(message -> assertThat(
                    InJvmKafkaBroker.header(message, OutboxMessageHeaders.EVENT_TYPE)).isEqualTo("OrderConfirmed"));
        }
    }

    private static String line(String orderId, int line) {
        return "{\"orderId\":\"" + orderId + "\",\"line\":" + line + "}";
    }
}
