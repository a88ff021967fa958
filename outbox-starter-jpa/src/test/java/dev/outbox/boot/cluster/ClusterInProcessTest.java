package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.assertHandledExactlyOnce;
import static dev.outbox.boot.cluster.ClusterAssertions.assertProcessingGuarantees;
import static dev.outbox.boot.cluster.ClusterAssertions.assertReleasedThenClaimedBefore;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static dev.outbox.boot.cluster.ClusterHarness.STALE_TIMEOUT;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.cluster.ClusterHarness.OwnershipChange;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * The quick version of the cluster tests: three application contexts of {@link ClusterNodeApplication} in the test
 * JVM, one database, different {@code outbox.instance.id}s.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class ClusterInProcessTest {

    private static final int AGGREGATES = 300;
    private static final int RECORDS_PER_AGGREGATE = 10;
    private static final int RECORDS = AGGREGATES * RECORDS_PER_AGGREGATE;

    @Test
    void aGracefullyClosedContextHandsItsPartitionsToTheOtherTwo(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test));
                InProcessNodes nodes = new InProcessNodes(cluster)) {
            long started = System.nanoTime();
            nodes.start("node-1", "node-2", "node-3");
            PartitionTable three = cluster.awaitBalanced("node-1", "node-2", "node-3");
            Duration balanced = since(started);

            cluster.insertRecords(AGGREGATES, RECORDS_PER_AGGREGATE);
            cluster.awaitCompleted(RECORDS / 3);
            Set<Integer> handedOver = cluster.partitionTable().partitionsOf("node-2");
            long completedAtClose = cluster.completedCount();
            long closing = System.nanoTime();
            nodes.close("node-2");
            Duration closed = since(closing);
            PartitionTable two = cluster.awaitBalanced("node-1", "node-3");
            Duration handover = since(closing);
            cluster.awaitAllCompleted();

            Instant staleFrom = cluster.lastHeartbeatOf("node-2").plus(STALE_TIMEOUT);
            List<OwnershipChange> changes = cluster.ownershipChanges();
            report(test, "3 contexts balanced after %s: %s; node-2 closed with %d of %d records completed, close() "
                    + "took %s, 128/128 after %s: %s; handler calls %s", balanced, three, completedAtClose, RECORDS,
                    closed, handover, two, cluster.handlerCallsPerInstance());
            assertThat(three.countsByOwner()).containsOnlyKeys("node-1", "node-2", "node-3")
                    .allSatisfy((node, count) -> assertThat(count).as(node).isBetween(85, 86));
            assertThat(two.countsByOwner()).containsOnlyKeys("node-1", "node-3")
                    .allSatisfy((node, count) -> assertThat(count).as(node).isEqualTo(128));
            assertThat(cluster.isRegistered("node-2")).as("node-2 still in outbox_instance").isFalse();
            for (int partition : handedOver) {
                assertReleasedThenClaimedBefore(changes, partition, "node-2", staleFrom);
            }
            assertHandledExactlyOnce(cluster);
            assertProcessingGuarantees(cluster);
        }
    }

    /** The application contexts of the test; closes those still open. */
    private static final class InProcessNodes implements AutoCloseable {

        private final ClusterHarness cluster;
        private final Map<String, ConfigurableApplicationContext> contexts = new LinkedHashMap<>();

        InProcessNodes(ClusterHarness cluster) {
            this.cluster = cluster;
        }

        void start(String... instanceIds) {
            for (String instanceId : instanceIds) {
                contexts.put(instanceId, new SpringApplicationBuilder(ClusterNodeApplication.class)
                        .web(WebApplicationType.NONE)
                        .properties(cluster.nodeProperties(instanceId).toArray(String[]::new))
                        .run());
            }
        }

        /** Closes the context gracefully, as a shutdown does. */
        void close(String instanceId) {
            contexts.remove(instanceId).close();
        }

        @Override
        public void close() {
            List<RuntimeException> failures = new ArrayList<>();
            contexts.values().forEach(context -> {
                try {
                    context.close();
                } catch (RuntimeException e) {
                    failures.add(e);
                }
            });
            contexts.clear();
            if (!failures.isEmpty()) {
                throw failures.get(0);
            }
        }
    }
}
