package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StorageType;
import io.nats.client.api.StreamConfiguration;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Instances in JVMs of their own on PostgreSQL publishing to NATS JetStream while partitions move: a third instance
 * joins mid-run, then one is killed with -9. What the stream holds is checked against what was written: every record,
 * in its aggregate's order (the ordering invariant across instances), and no copy: re-sends of records the killed
 * instance had published come within the stream's duplicate window, which drops them.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PublishingClusterTest {

    private static final int AGGREGATES = 1_000;
    private static final int RECORDS_PER_AGGREGATE = 10;

    @Test
    void twoInstancesPublishInOrderWhileAThirdJoinsAndOneIsKilled(TestInfo test) throws Exception {
        String url = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        String stream = "CLUSTER_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12)
                .toUpperCase(Locale.ROOT);
        try (Connection admin = Nats.connect(url); ClusterHarness cluster = ClusterHarness.create(name(test))) {
            JetStreamManagement streams = admin.jetStreamManagement();
            streams.addStream(StreamConfiguration.builder().name(stream).subjects(stream + ".>")
                    .storageType(StorageType.File).build());
            try {
                String[] publisher = {"outbox.nats.enabled=true", "outbox.nats.url=" + url,
                    "outbox.nats.default-subject=" + stream + ".orders", "outbox.nats.expected-stream=" + stream};
                cluster.addressRecordsTo("nats");
                cluster.startNodes(List.of("node-1", "node-2"), publisher);
                cluster.awaitBalanced("node-1", "node-2");
                cluster.insertRecords(AGGREGATES, RECORDS_PER_AGGREGATE);
                cluster.awaitCompleted(AGGREGATES);

                Set<Integer> orphaned;
                Duration takeover;
                // However long a JVM takes to start here, records keep flowing until the partitions have moved.
                try (BacklogFeeder feeder = BacklogFeeder.start(cluster, AGGREGATES)) {
                    cluster.startNode("node-3", publisher);
                    cluster.awaitUp("node-3");
                    cluster.awaitBalanced("node-1", "node-2", "node-3");
                    orphaned = cluster.partitionTable().partitionsOf("node-1");
                    long killed = System.nanoTime();
                    cluster.kill9("node-1");
                    cluster.awaitTakenOver("node-1", orphaned);
                    takeover = since(killed);
                    cluster.awaitBalanced("node-2", "node-3");
                }
                cluster.awaitAllCompleted();

                List<OutboxRecord> written = cluster.storedRecords();
                List<MessageInfo> messages = readAll(streams, stream);
                DeliveryCheck check = DeliveryCheck.of(written, messages.stream()
                        .map(message -> new DeliveryCheck.Consumed(
                                message.getHeaders().getFirst(OutboxMessageHeaders.RECORD_ID),
                                message.getHeaders().getFirst(OutboxMessageHeaders.AGGREGATE_ID),
                                Long.parseLong(message.getHeaders().getFirst(OutboxMessageHeaders.SEQUENCE))))
                        .toList());
                report(test, "%d records published by node-1, node-2, then node-3 joining and node-1 killed with -9 "
                        + "(%d partitions, all owned by others after %s); the stream holds %s", written.size(),
                        orphaned.size(), takeover, check);
                assertThat(written).hasSize((int) cluster.recordsInserted());
                assertThat(check.missing()).as("%s", check).isEmpty();
                assertThat(check.unknown()).as("%s", check).isEmpty();
                assertThat(check.orderViolations()).as("the ordering invariant across instances").isEmpty();
                assertThat(check.copies()).as("re-sends dropped within the duplicate window").isZero();
                assertThat(cluster.statusWritesByNonOwners()).as("status writes by an instance not owning the "
                        + "partition").isEmpty();
                assertThat(cluster.recordsCompletedTwice()).as("records completed twice").isEmpty();
            } finally {
                streams.deleteStream(stream);
            }
        }
    }

    private static List<MessageInfo> readAll(JetStreamManagement streams, String stream) throws Exception {
        long count = streams.getStreamInfo(stream).getStreamState().getMsgCount();
        List<MessageInfo> messages = new ArrayList<>((int) count);
        for (long sequence = 1; sequence <= count; sequence++) {
            messages.add(streams.getMessage(stream, sequence));
        }
        return messages;
    }
}
