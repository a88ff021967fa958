package dev.outbox.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import dev.outbox.testkit.TcpProxy;
import java.time.Duration;
import java.util.List;
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
    private static final int AGGREGATES = 1_000;
    private static final int RECORDS_PER_AGGREGATE = 20;

    @Test
    void aTenSecondCutMidBacklogLosesNothingFailsNothingAndKeepsEveryAggregatesOrder() {
        try (KafkaTestBroker broker = KafkaTestBroker.startBehindProxy()) {
            TcpProxy proxy = broker.proxy();
            String topic = broker.createTopic("cut", 4, Map.of());
            int records = AGGREGATES * RECORDS_PER_AGGREGATE;
            List<OutboxRecord> written;
            long completedAtCut;
            long resent;
            try (Producer<String, byte[]> producer = broker.producer(Map.of(
                    ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 4_000, ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000,
                    ProducerConfig.MAX_BLOCK_MS_CONFIG, 2_000, ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500))) {
                KafkaOutboxPublisher publisher = KafkaOutboxPublisher.builder(producer)
                        .router(record -> topic).acknowledgementTimeout(Duration.ofSeconds(8)).build();
                try (PublishingRig rig = PublishingRig.create("kafka", publisher,
                        OutboxRetryPolicy.fixed(Duration.ofMillis(500)).withMaxRetries(1_000))) {
                    written = rig.write(AGGREGATES, RECORDS_PER_AGGREGATE, "OrderPlaced");
                    rig.startProcessing();
                    await().atMost(DEADLINE).pollInterval(Duration.ofMillis(10))
                            .until(() -> rig.count(OutboxRecordStatus.COMPLETED) >= records / 10);

                    completedAtCut = rig.count(OutboxRecordStatus.COMPLETED);
                    proxy.cutFor(CUT);
                    await().atMost(DEADLINE).until(() -> !proxy.isCut());
                    long completedDuringCut = rig.count(OutboxRecordStatus.COMPLETED) - completedAtCut;
                    rig.awaitAllCompleted(DEADLINE);
                    written = written.stream().map(rig::stored).toList();
                    resent = written.stream().filter(record -> record.getRetryCount() > 0).count();

                    System.out.printf("Kafka cut of %s at %d of %d records completed: %d completed during the cut; "
                                    + "failed attempts %s; %d records sent more than once; %d connections, %d cut%n",
                            CUT, completedAtCut, records, completedDuringCut, rig.failuresByReason(), resent,
                            proxy.connections(), proxy.cuts());
                    assertThat(completedAtCut).as("cut in the middle of the backlog").isLessThan(records);
                    assertThat(proxy.cuts()).as("connections cut").isPositive();
                    assertThat(rig.count(OutboxRecordStatus.FAILED)).isZero();
                    assertThat(rig.failuresByReason()).as("the cut was felt").isNotEmpty();
                    assertThat(rig.otherFailures()).isEmpty();
                }
            }

            DeliveryCheck check = DeliveryCheck.of(written,
                    broker.readAll(topic, records).stream().map(KafkaTestBroker::consumed).toList());
            System.out.println("Kafka cut: the topic holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("copies only of records sent more than once")
                    .isLessThanOrEqualTo((int) resent);
        }
    }
}
