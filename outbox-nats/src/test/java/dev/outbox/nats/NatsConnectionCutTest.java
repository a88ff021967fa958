package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import dev.outbox.testkit.TcpProxy;
import io.nats.client.Connection;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Every connection between the publisher and NATS cut for 10 s in the middle of a backlog: nothing is lost, no record
 * fails, processing resumes by itself, and the stream holds every record exactly once in order, because JetStream
 * drops the re-sends of records it stored before the cut (their {@code Nats-Msg-Id} is within its duplicate window).
 */
class NatsConnectionCutTest {

    private static final Duration CUT = Duration.ofSeconds(10);
    private static final Duration DEADLINE = Duration.ofSeconds(180);
    private static final int AGGREGATES = 1_000;
    private static final int RECORDS_PER_AGGREGATE = 20;

    @Test
    void aTenSecondCutMidBacklogLosesNothingFailsNothingAndStoresEveryRecordOnceInOrder() throws Exception {
        try (NatsTestServer server = NatsTestServer.require();
                TcpProxy proxy = TcpProxy.to(server.host(), server.port());
                Connection connection = NatsTestServer.connect("nats://127.0.0.1:" + proxy.port())) {
            String stream = server.createStream("cut", -1);
            NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(connection)
                    .router(EventTypeRouting.<String>builder("NATS subject").defaultDestination(stream + ".orders")
                            .build())
                    .publishTimeout(Duration.ofSeconds(2)).acknowledgementTimeout(Duration.ofSeconds(5))
                    .build();
            int records = AGGREGATES * RECORDS_PER_AGGREGATE;
            List<OutboxRecord> written;
            long completedAtCut;
            try (PublishingRig rig = PublishingRig.create("nats", publisher,
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

                System.out.printf("NATS cut of %s at %d of %d records completed: %d completed during the cut; "
                                + "failed attempts %s; reported duplicates %d; %d connections, %d cut%n", CUT,
                        completedAtCut, records, completedDuringCut, rig.failuresByReason(),
                        rig.duplicatesReported(), proxy.connections(), proxy.cuts());
                assertThat(completedAtCut).as("cut in the middle of the backlog").isLessThan(records);
                assertThat(proxy.cuts()).as("connections cut").isPositive();
                assertThat(rig.count(OutboxRecordStatus.FAILED)).isZero();
                assertThat(rig.failuresByReason()).as("the cut was felt").isNotEmpty();
                assertThat(rig.otherFailures()).isEmpty();
                written = written.stream().map(rig::stored).toList();
            }

            DeliveryCheck check = DeliveryCheck.of(written,
                    server.readAll(stream).stream().map(NatsTestServer::consumed).toList());
            System.out.println("NATS cut: the stream holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("re-sends dropped by the duplicate window").isZero();
            assertThat(server.messageCount(stream)).isEqualTo(records);
        }
    }
}
