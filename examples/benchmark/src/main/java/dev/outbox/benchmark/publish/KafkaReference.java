package dev.outbox.benchmark.publish;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * Kafka's own producer with the settings {@code OutboxKafkaProducers} gives the outbox's producer (idempotent,
 * {@code acks=all}, {@code linger.ms=0}, its timeouts), sending as {@code KafkaOutboxPublisher} does: keyed by the
 * aggregate id, the record's creation time as timestamp, the outbox headers as Kafka headers, to a topic of 8
 * partitions like {@link KafkaTarget}'s, which that target made for the run when it started the broker; deleted after
 * the run.
 */
final class KafkaReference implements PlainClientReference {

    private static final String SETTINGS = "enable.idempotence=true, acks=all, linger.ms=0, max.block.ms=5000, "
            + "delivery.timeout.ms=20000, request.timeout.ms=10000, send callback per message";

    private final String bootstrapServers;
    private final String topic;

    KafkaReference(String bootstrapServers, String topic) {
        this.bootstrapServers = bootstrapServers;
        this.topic = topic;
    }

    @Override
    public ReferenceRun run(List<ReferenceMessage> warmup, List<ReferenceMessage> measured, int window) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.LINGER_MS_CONFIG, 0,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 5_000,
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                    ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000,
                    ProducerConfig.CLIENT_ID_CONFIG, "outbox-bench-reference",
                    ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                    ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
                publish(producer, topic, warmup, window);
                return publish(producer, topic, measured, window);
            } finally {
                admin.deleteTopics(List.of(topic)).all().get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("Kafka reference on topic " + topic + ": " + e, e);
        }
    }

    private static ReferenceRun publish(KafkaProducer<String, byte[]> producer, String topic,
            List<ReferenceMessage> messages, int window) throws InterruptedException {
        AckWindow inFlight = new AckWindow(window, messages.size());
        for (ReferenceMessage message : messages) {
            RecordHeaders headers = new RecordHeaders();
            message.headers().forEach((name, value) -> headers.add(name, value.getBytes(StandardCharsets.UTF_8)));
            inFlight.take();
            producer.send(new ProducerRecord<>(topic, null, message.createdAt().toEpochMilli(), message.aggregateId(),
                    message.body(), headers), (metadata, failure) -> {
                        if (failure == null) {
                            inFlight.acknowledged(1);
                        } else {
                            inFlight.failed(String.valueOf(failure));
                        }
                    });
        }
        return inFlight.await(SETTINGS);
    }
}
