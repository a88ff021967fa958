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
import dev.outbox.Outbox;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

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

    /**
     * Records written through the library while partitions move twice (node-3 joins, node-1 leaves): the writer's
     * NOTIFY, the wake-up after a claim and the quick polls that follow activity may all trigger fetches at any moment,
     * and with an hour-long poll interval nothing else does. Every record must still be handled exactly once, in its
     * aggregate's order, and only owners may store outcomes.
     */
    @Test
    void wakeUpsNeverDeliverTwiceOrOutOfOrderWhilePartitionsMove(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test));
                InProcessNodes nodes = new InProcessNodes(cluster, "outbox.poll-interval=1h")) {
            nodes.start("node-1", "node-2");
            cluster.awaitBalanced("node-1", "node-2");
            nodes.startWriter("writer");
            Outbox outbox = nodes.context("writer").getBean(Outbox.class);
            TransactionTemplate transactions = new TransactionTemplate(
                    nodes.context("writer").getBean(PlatformTransactionManager.class));

            int written = 0;
            for (int round = 0; round < 30; round++) {
                if (round == 10) {
                    nodes.start("node-3");
                }
                if (round == 20) {
                    nodes.close("node-1");
                }
                int first = written;
                transactions.executeWithoutResult(status -> {
                    for (int n = first; n < first + 50; n++) {
                        outbox.schedule(Map.of("n", n), "aggregate-" + (n % 40));
                    }
                });
                written += 50;
            }
            long expected = written;
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(200))
                    .until(() -> cluster.statusCounts().getOrDefault("COMPLETED", 0L) == expected);

            report(test, "%d records written while node-3 joined and node-1 left; handler calls %s; partitions %s",
                    expected, cluster.handlerCallsPerInstance(), cluster.partitionTable());
            assertThat(cluster.distinctRecordsHandled()).isEqualTo(expected);
            assertThat(cluster.duplicates()).as("records handled twice").isEmpty();
            assertThat(cluster.orderViolations()).as("per-aggregate order").isEmpty();
            assertThat(cluster.statusWritesByNonOwners()).as("status writes by non-owners").isEmpty();
        }
    }

    /**
     * Liveness and ownership are judged by the database's clock only: two nodes whose clocks are a minute apart
     * (+30 s and -30 s, beyond the 4-s stale timeout many times over) balance, and stay balanced heartbeat after
     * heartbeat, with no node taken for dead.
     */
    @Test
    void twoInstancesWhoseClocksAreAMinuteApartAgreeOnLivenessAndOwnership(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test));
                InProcessNodes nodes = new InProcessNodes(cluster)) {
            nodes.startWith("node-1", "cluster.clock-offset=30s");
            nodes.startWith("node-2", "cluster.clock-offset=-30s");
            PartitionTable balanced = cluster.awaitBalanced("node-1", "node-2");
            int changesWhenBalanced = cluster.ownershipChanges().size();
            Instant balancedAt = cluster.lastHeartbeatOf("node-1");

            // Eight more heartbeats of each node, by the database's clock: twice the stale timeout.
            Instant later = balancedAt.plus(STALE_TIMEOUT.multipliedBy(2));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200))
                    .until(() -> !cluster.lastHeartbeatOf("node-1").isBefore(later)
                            && !cluster.lastHeartbeatOf("node-2").isBefore(later));

            report(test, "clocks +30 s and -30 s: balanced %s; %d ownership changes to balance, %d after, over %s of "
                    + "heartbeats; departures %s", balanced, changesWhenBalanced,
                    cluster.ownershipChanges().size() - changesWhenBalanced, STALE_TIMEOUT.multipliedBy(2),
                    cluster.departuresOf("node-1").size() + cluster.departuresOf("node-2").size());
            assertThat(cluster.ownershipChanges()).as("no partition moved once balanced")
                    .hasSize(changesWhenBalanced);
            assertThat(cluster.departuresOf("node-1")).as("node-1 never removed as stale").isEmpty();
            assertThat(cluster.departuresOf("node-2")).as("node-2 never removed as stale").isEmpty();
            assertThat(cluster.partitionTable().countsByOwner()).containsOnly(
                    Map.entry("node-1", 128), Map.entry("node-2", 128));
        }
    }

    /** The application contexts of the test; closes those still open. */
    private static final class InProcessNodes implements AutoCloseable {

        private final ClusterHarness cluster;
        private final List<String> overrides;
        private final Map<String, ConfigurableApplicationContext> contexts = new LinkedHashMap<>();

        InProcessNodes(ClusterHarness cluster, String... overrides) {
            this.cluster = cluster;
            this.overrides = List.of(overrides);
        }

        void start(String... instanceIds) {
            for (String instanceId : instanceIds) {
                contexts.put(instanceId, run(instanceId));
            }
        }

        /** A node with properties of its own besides the test's. */
        void startWith(String instanceId, String... properties) {
            contexts.put(instanceId, run(instanceId, properties));
        }

        /** An application that only writes: no background processing, so no cluster membership. */
        void startWriter(String instanceId) {
            contexts.put(instanceId, run(instanceId, "outbox.processing.enabled=false"));
        }

        ConfigurableApplicationContext context(String instanceId) {
            return contexts.get(instanceId);
        }

        /** The node properties, with this test's overrides taking precedence. */
        private ConfigurableApplicationContext run(String instanceId, String... more) {
            Map<String, String> properties = new LinkedHashMap<>();
            cluster.nodeProperties(instanceId).forEach(property -> put(properties, property));
            overrides.forEach(property -> put(properties, property));
            for (String property : more) {
                put(properties, property);
            }
            return new SpringApplicationBuilder(ClusterNodeApplication.class)
                    .web(WebApplicationType.NONE)
                    .properties(properties.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                            .toArray(String[]::new))
                    .run();
        }

        private static void put(Map<String, String> properties, String property) {
            int equals = property.indexOf('=');
            properties.put(property.substring(0, equals), property.substring(equals + 1));
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
