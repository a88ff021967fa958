package dev.outbox.benchmark.publish;

import dev.outbox.publish.OutboxMessageHeaders;
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
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * A single-node KRaft Kafka broker in this JVM (Spring Kafka's test broker: nothing to install) and one topic of 8
 * partitions, and another for the plain-client reference. The broker shares the machine's cores with the benchmark, as
 * a local broker would.
 */
public final class KafkaTarget implements BenchTarget {

    private static final String TOPIC = "outbox-bench";

    private final EmbeddedKafkaKraftBroker broker;
    private final String referenceTopic = "outbox-bench-ref-" + UUID.randomUUID().toString().replace("-", "")
            .substring(0, 12);

    public KafkaTarget() {
        broker = new EmbeddedKafkaKraftBroker(1, 1);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        // Both made now: an idempotent producer's first sends to a topic made a moment before met partitions without
        // a leader yet, then out-of-order sequence errors until its delivery timeout.
        broker.addTopics(new NewTopic(TOPIC, 8, (short) 1), new NewTopic(referenceTopic, 8, (short) 1));
    }

    @Override
    public String name() {
        return "kafka";
    }

    @Override
    public List<String> properties() {
        return List.of("outbox.kafka.enabled=true", "outbox.kafka.bootstrap-servers=" + broker.getBrokersAsString(),
                "outbox.kafka.default-topic=" + TOPIC);
    }

    @Override
    public PlainClientReference plainClientReference() {
        return new KafkaReference(broker.getBrokersAsString(), referenceTopic);
    }

    @Override
    public List<Delivered> readBack(long expected) {
        List<Delivered> delivered = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.getBrokersAsString(),
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000))) {
            List<TopicPartition> partitions = consumer.partitionsFor(TOPIC).stream()
                    .map(info -> new TopicPartition(TOPIC, info.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
            while (partitions.stream().anyMatch(partition -> consumer.position(partition) < end.get(partition))) {
                for (ConsumerRecord<String, byte[]> message : consumer.poll(Duration.ofMillis(500))) {
                    delivered.add(new Delivered(header(message, OutboxMessageHeaders.RECORD_ID), message.key(),
                            Long.parseLong(header(message, OutboxMessageHeaders.SEQUENCE))));
                }
            }
        }
        return delivered;
    }

    private static String header(ConsumerRecord<String, byte[]> message, String name) {
        return new String(message.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        broker.destroy();
    }
}
