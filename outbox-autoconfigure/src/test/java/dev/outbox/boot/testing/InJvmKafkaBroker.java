package dev.outbox.boot.testing;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node KRaft Kafka cluster in the test's JVM (Spring Kafka's test broker) with the topics it is started
 * with and no others: the broker creates none by itself.
 */
public final class InJvmKafkaBroker implements AutoCloseable {

    private final EmbeddedKafkaKraftBroker broker;

    private InJvmKafkaBroker(NewTopic... topics) {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        broker.addTopics(topics);
    }

    public static InJvmKafkaBroker start(NewTopic... topics) {
        return new InJvmKafkaBroker(topics);
    }

    public String bootstrapServers() {
        return broker.getBrokersAsString();
    }

    /** Every message the topic holds now, in each partition's order. */
    public List<ConsumerRecord<String, byte[]>> readAll(String topic) {
        List<ConsumerRecord<String, byte[]>> messages = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers(),
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

    public static String header(ConsumerRecord<String, byte[]> message, String name) {
        return new String(message.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    public static String value(ConsumerRecord<String, byte[]> message) {
        return new String(message.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        broker.destroy();
    }
}
