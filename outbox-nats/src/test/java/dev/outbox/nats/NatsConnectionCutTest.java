package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.publish.EventTypeRouting;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.ConnectionCut;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.PublishingRig;
import dev.outbox.testkit.TcpProxy;
import io.nats.client.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Every connection between the publisher and NATS cut for 10 s in the middle of a backlog: nothing is lost, no record
 * fails, processing resumes by itself, and the stream holds every record exactly once in order, because JetStream
 * drops the re-sends of records it stored before the cut (their {@code Nats-Msg-Id} is within its duplicate window).
 */
class NatsConnectionCutTest {

    private static final Duration CUT = Duration.ofSeconds(10);
    private static final Duration DEADLINE = Duration.ofSeconds(180);

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
            ConnectionCut.Outcome outcome;
            try (PublishingRig rig = PublishingRig.create("nats", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(500)).withMaxRetries(1_000))) {
                outcome = ConnectionCut.midBacklog(rig, proxy, 1_000, 20, CUT, DEADLINE);
            }
            System.out.println("NATS " + outcome);
            outcome.assertRecoveredWithoutFailures();

            DeliveryCheck check = DeliveryCheck.of(outcome.written(),
                    server.readAll(stream).stream().map(NatsTestServer::consumed).toList());
            System.out.println("NATS cut: the stream holds " + check);
            assertThat(check.missing()).as("%s", check).isEmpty();
            assertThat(check.unknown()).isEmpty();
            assertThat(check.orderViolations()).isEmpty();
            assertThat(check.copies()).as("re-sends dropped by the duplicate window").isZero();
            assertThat(server.messageCount(stream)).isEqualTo(outcome.records());
        }
    }
}
