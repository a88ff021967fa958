package dev.outbox.nats;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.EventTypeRouting;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testkit.PublishingRig;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A subject the publisher's user may not publish to, on a NATS server of this test's own (the shared server has no
 * users): the server refuses the publish, and the record fails at once as not authorized instead of timing out.
 */
class NatsPermissionTest {

    private static final Duration DEADLINE = Duration.ofSeconds(120);

    @Test
    void aSubjectTheUserMayNotPublishToFailsAtOnceAsNotAuthorizedWhileOtherSubjectsFlow() throws Exception {
        try (NatsServerProcess server = NatsServerProcess.start("""
                    APP {
                        jetstream: enabled
                        users: [
                            { user: admin, password: admin-secret }
                            { user: outbox, password: outbox-secret, permissions: { publish: { deny: ["payments.>"] } } }
                        ]
                    }
                """);
                Connection admin = Nats.connect(options(server, "admin", "admin-secret", null));
                Connection restricted = Nats.connect(options(server, "outbox", "outbox-secret",
                        new NatsPermissionViolations()))) {
            JetStreamManagement streams = admin.jetStreamManagement();
            streams.addStream(StreamConfiguration.builder().name("ORDERS").subjects("orders.>")
                    .storageType(StorageType.File).build());
            streams.addStream(StreamConfiguration.builder().name("PAYMENTS").subjects("payments.>")
                    .storageType(StorageType.File).build());
            // the publisher finds the listener on the connection
            NatsOutboxPublisher publisher = NatsOutboxPublisher.builder(restricted)
                    .router(EventTypeRouting.<String>builder("NATS subject")
                            .route("OrderPlaced", "orders.placed")
                            .route("PaymentTaken", "payments.taken")
                            .build())
                    .build();
            assertThat(publisher.toString()).contains("permission violations watched");
            try (PublishingRig rig = PublishingRig.start("nats", publisher,
                    OutboxRetryPolicy.fixed(Duration.ofMillis(200)).withMaxRetries(5))) {
                OutboxRecord refused = rig.write("payment-1", "PaymentTaken", "{}");
                List<OutboxRecord> fine = rig.write(20, 5, "OrderPlaced");

                OutboxRecord failed = rig.awaitSettled(refused, DEADLINE);
                assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
                assertThat(failed.getRetryCount()).isZero();
                assertThat(failed.getLastError()).contains("NATS subject 'payments.taken'")
                        .containsIgnoringCase("Permissions Violation for Publish");
                assertThat(fine).allSatisfy(record -> assertThat(rig.awaitSettled(record, DEADLINE).getStatus())
                        .isEqualTo(OutboxRecordStatus.COMPLETED));
                assertThat(rig.failuresByReason()).containsOnly(Map.entry(Reason.NOT_AUTHORIZED, 1L));
            }
            assertThat(streams.getStreamInfo("ORDERS").getStreamState().getMsgCount()).isEqualTo(100);
            assertThat(streams.getStreamInfo("PAYMENTS").getStreamState().getMsgCount()).isZero();
        }
    }

    private static Options options(NatsServerProcess server, String user, String password,
            NatsPermissionViolations violations) {
        Options.Builder options = new Options.Builder().server(server.url()).userInfo(user, password)
                .connectionTimeout(Duration.ofSeconds(5));
        if (violations != null) {
            options.errorListener(violations);
        }
        return options.build();
    }
}
