package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.ConnectionCut;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.junit.jupiter.api.Test;

/**
 * Every connection between the producer and Kafka cut for 10 s in the middle of a backlog: nothing is lost, no record
 * fails, processing resumes by itself, and every aggregate's first occurrences are in order in its Kafka partition.
 * Records whose acknowledgements the cut swallowed are sent again: those copies are the documented duplicates.
 */
class KafkaConnectionCutTest {

    private static final Duration CUT = Duration.ofSeconds(10);
    private static final Duration DEADLINE = Duration.ofSeconds(180);

    @Test
    void aTenSecondCutMidBacklogLosesNothingFailsNothingAndKeepsEveryAggregatesOrder() {
        try (KafkaTestBroker broker = KafkaTestBroker.startBehindProxy()) {
            String topic = broker.createTopic("cut", 4, Map.of());
            ConnectionCut.Outcome outcome;
            try (Producer<String, byte[]> producer = broker.producer(Map.of(
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000, ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500));
                    PublishingRig rig = PublishingRig.create("kafka", KafkaOutboxPublisher.builder(producer)
                            .router(record -> topic).acknowledgementTimeout(Duration.ofSeconds(8)).build(),
                            OutboxRetryPolicy.fixed(Duration.ofMillis(500)).withMaxRetries(1_000))) {
                outcome = ConnectionCut.midBacklog(rig, broker.proxy(), 1_000, 20, CUT, DEADLINE);
            }
            System.out.println("Kafka " + outcome);
            outcome.assertRecoveredWithoutFailures();

            DeliveryCheck check = DeliveryCheck.of(outcome.written(),
                    broker.readAll(topic, outcome.records()).stream().map(KafkaTestBroker::consumed).toList());
            System.out.println("Kafka cut: the topic holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("copies only of records sent more than once")
                    .isLessThanOrEqualTo((int) outcome.sentMoreThanOnce());
        }
    }
}
