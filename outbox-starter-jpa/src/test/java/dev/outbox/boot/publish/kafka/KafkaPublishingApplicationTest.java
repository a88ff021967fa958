package dev.outbox.boot.publish.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.boot.publish.PublishingApplication;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A Spring Boot application on H2 with Spring Kafka and the README's {@code spring.kafka.*} and {@code outbox.kafka.*}
 * properties, against an in-JVM KRaft broker: records written in a business transaction reach their topics keyed by
 * aggregate, with their headers, once each and in order, and are completed; a rolled-back transaction publishes
 * nothing. The README's topics are renamed to names of this test's own.
 */
class KafkaPublishingApplicationTest extends DatabasePerTestClass {

    private EmbeddedKafkaKraftBroker broker;
    private String orders;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void startBroker() {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        orders = "orders-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        broker.addTopics(new NewTopic(orders, 3, (short) 1), new NewTopic(orders + "-other", 1, (short) 1));
    }

    @AfterAll
    void stopBroker() {
        if (broker != null) {
            broker.destroy();
        }
    }

    @Test
    void theReadmesPropertiesPublishEveryCommittedRecordToItsTopicKeyedByAggregate() {
        List<String> overrides = new ArrayList<>(dataSourceProperties());
        overrides.add("spring.kafka.bootstrap-servers=" + broker.getBrokersAsString());
        try (ConfigurableApplicationContext app = PublishingApplication.run(PublishingApplication.readmeProperties(
                "outbox.kafka.enabled", value -> value.replace("orders", orders), overrides))) {
            List<OutboxRecord> written = PublishingApplication.writeOrdersAndAwaitPublished(app);

            List<ConsumerRecord<String, byte[]>> messages = readAll(orders);
            List<ConsumerRecord<String, byte[]>> others = readAll(orders + "-other");
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

    private List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        List<ConsumerRecord<String, byte[]>> messages = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class))) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic).stream()
                    .map(info -> new TopicPartition(topic, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
                consumer.poll(Duration.ofMillis(500)).forEach(messages::add);
            }
        }
        return messages;
    }

    private static String header(ConsumerRecord<String, byte[]> message, String name) {
        return new String(message.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
