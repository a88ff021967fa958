package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.PublishingRig;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * A broker that enforces ACLs, and a producer of its own: a producer refused a topic keeps asking for that topic's
 * metadata for a while, which must not reach the other tests' producer.
 */
class KafkaAuthorizationTest {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void aTopicTheProducerMayNotWriteToFailsAtOnceAsNotAuthorizedWhileOtherTopicsFlow() {
        try (KafkaTestBroker broker = KafkaTestBroker.startWithAuthorizer();
                Producer<String, byte[]> producer = broker.producer(
                        Map.of(ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000))) {
            publishTo(broker, producer);
        }
    }

    private static void publishTo(KafkaTestBroker broker, Producer<String, byte[]> producer) {
        String allowed = broker.createTopic("allowed", 2, Map.of());
        String denied = broker.createTopic("denied", 2, Map.of());
        broker.onlyDescribeAllowed(denied);
        KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(producer)
                .router(EventTypeRouting.<String>builder("Kafka topic")
                        .route("OrderPlaced", allowed)
                        .route("PaymentTaken", denied)
                        .build())
                .topicLookup(broker.admin())
                .build();
        try (PublishingRig rig = PublishingRig.start("kafka", publisher,
                OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
            OutboxRecord refused = rig.write("payment-1", "PaymentTaken", "{}");
            List<OutboxRecord> fine = rig.write(20, 5, "OrderPlaced");

            OutboxRecord failed = rig.awaitSettled(refused, DEADLINE);
            assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
            assertThat(failed.getRetryCount()).isZero();
            assertThat(failed.getLastError()).contains("Kafka topic '" + denied + "'")
                    .contains("TopicAuthorizationException");
            assertThat(fine).allSatisfy(record -> assertThat(rig.awaitSettled(record, DEADLINE).getStatus())
                    .isEqualTo(OutboxRecordStatus.COMPLETED));
            assertThat(rig.failuresByReason()).containsOnly(Map.entry(Reason.NOT_AUTHORIZED, 1L));
        }
        assertThat(broker.readAll(allowed, 100)).hasSize(100);
        assertThat(broker.messageCount(denied)).isZero();
    }
}
