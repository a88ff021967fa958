package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.assertProcessingGuarantees;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.cluster.HealthWatch.Reading;
import dev.outbox.boot.cluster.PrivatePostgres.StopMode;
import dev.outbox.jdbc.testing.TestDatabase;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The PostgreSQL server itself goes away while two node JVMs drain a backlog: a server of the test's own
 * ({@link PrivatePostgres}) is stopped with {@code pg_ctl stop -m fast} (sessions ended, a clean shutdown), started
 * again after {@link #OUTAGE}, and later stopped with {@code -m immediate} (a crash: recovery from the WAL at the next
 * start) and started again. The nodes are never restarted: they must finish every record in each aggregate's order, and
 * each node's {@code outbox} health must say DOWN while the server is gone, never UP until it is back, and UP after.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class PostgresServerRestartTest {

    private static final List<String> NODES = List.of("node-1", "node-2");
    private static final int AGGREGATES = 500;
    private static final int RECORDS_PER_AGGREGATE = 12;
    private static final int RECORDS = AGGREGATES * RECORDS_PER_AGGREGATE;
    /** How long the server stays down each time, from the moment pg_ctl has stopped it. */
    private static final Duration OUTAGE = Duration.ofSeconds(8);
    /** Each node may lose what it held at each cut: fetched records whose completions were not stored. */
    private static final int RECORDS_IN_HAND_OF_BOTH = 2 * 2 * ClusterHarness.BATCH_SIZE;

    /** When one outage began and ended (System.nanoTime()), and what the cluster had done by then. */
    private record Outage(StopMode mode, long cutAt, long stoppedAt, long restartAt, long restoredAt,
            long completedAtCut, Duration firstCompletion) {
    }

    @Test
    void twoNodesLiveThroughTheirServerStoppedAndThenCrashedMidDrainAndFinishEveryRecordInOrder(TestInfo test)
            throws Exception {
        try (PrivatePostgres server = PrivatePostgres.create();
                ClusterHarness cluster = ClusterHarness.create(name(test),
                        TestDatabase.createOn(TestDatabase.Kind.POSTGRES, server.adminUrl(), "postgres", ""))) {
            long startedAt = System.nanoTime();
            Map<String, URI> web = cluster.startWebNodes(NODES, "cluster.handler-pause=10ms",
                    // The health snapshot is refreshed every second, so that it shows the outage's end soon.
                    "outbox.metrics.refresh-interval=1s");
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            try (HealthWatch health = HealthWatch.start(web)) {
                health.awaitEvery(cluster, "UP", startedAt);
                cluster.insertRecords(AGGREGATES, RECORDS_PER_AGGREGATE);
                long drainStart = System.nanoTime();

                cluster.awaitCompleted(RECORDS / 6);
                Outage stop = outage(cluster, server, health, StopMode.FAST);
                cluster.awaitCompleted(RECORDS / 2);
                Outage crash = outage(cluster, server, health, StopMode.IMMEDIATE);
                cluster.awaitAllCompleted();
                Duration drained = since(drainStart);

                for (Outage outage : List.of(stop, crash)) {
                    report(test, "pg_ctl stop -m %s with %d of %d records completed, server down %s (stop took %s): "
                            + "first completion %s after the restart; health %s", outage.mode().option(),
                            outage.completedAtCut(), RECORDS, millis(outage.restartAt() - outage.stoppedAt()),
                            millis(outage.stoppedAt() - outage.cutAt()), outage.firstCompletion(),
                            healthSummary(health, outage));
                }
                Map<String, String> leaseLog = new LinkedHashMap<>();
                NODES.forEach(node -> leaseLog.put(node, cluster.logLinesContaining(node, "has not heartbeated")
                        + " lost, " + cluster.logLinesContaining(node, "heartbeats again") + " regained"));
                report(test, "all %d records completed %s after the drain began; %d handled twice; order violations "
                        + "%d; lease log lines %s; health from the first cut: %s", RECORDS, drained,
                        cluster.duplicates().size(), cluster.orderViolations().size(), leaseLog,
                        changes(health, stop.cutAt()));

                assertProcessingGuarantees(cluster);
                assertThat(cluster.duplicates()).as("records handled twice: only those in hand at the two cuts")
                        .hasSizeLessThanOrEqualTo(2 * RECORDS_IN_HAND_OF_BOTH);
                for (Outage outage : List.of(stop, crash)) {
                    for (String node : NODES) {
                        assertHealthTruthful(health, node, outage);
                    }
                }
                assertThat(NODES).as("outbox health at the end").allSatisfy(node ->
                        assertThat(health.latest(node).orElseThrow().status()).as(node).isEqualTo("UP"));
            }
        }
    }

    /**
     * Stops the server, keeps it down for {@link #OUTAGE} while the nodes must stay up, starts it again and waits for
     * the first completion after that and for every node's health to be UP again.
     */
    private static Outage outage(ClusterHarness cluster, PrivatePostgres server, HealthWatch health, StopMode mode) {
        long completedAtCut = cluster.completedCount();
        assertThat(completedAtCut).as("records completed when the server stops: the backlog outlasts the cut")
                .isLessThan(RECORDS);
        long cutAt = System.nanoTime();
        server.stop(mode);
        long stoppedAt = System.nanoTime();
        cluster.awaitWhileNodesLive("server down for " + OUTAGE, () -> since(stoppedAt).compareTo(OUTAGE) >= 0);
        long restartAt = System.nanoTime();
        server.start();
        long restoredAt = System.nanoTime();
        cluster.awaitCompleted(cluster.completedCount() + 1);
        Duration firstCompletion = since(restoredAt);
        health.awaitEvery(cluster, "UP", restoredAt);
        return new Outage(mode, cutAt, stoppedAt, restartAt, restoredAt, completedAtCut, firstCompletion);
    }

    /**
     * While the server was gone the node said DOWN, and from its first DOWN to the restart nothing but DOWN (or no
     * answer); after the restart, UP.
     */
    private static void assertHealthTruthful(HealthWatch health, String node, Outage outage) {
        String seen = node + " " + outage.mode() + ": " + health.changes(node, outage.cutAt());
        List<Reading> whileGone = health.readings(node, outage.stoppedAt(), outage.restartAt());
        Reading firstDown = whileGone.stream().filter(reading -> reading.status().equals("DOWN")).findFirst()
                .orElseThrow(() -> new AssertionError("no DOWN while the server was down; " + seen));
        assertThat(health.readings(node, firstDown.askedAt(), outage.restartAt()))
                .as("after its first DOWN, nothing but DOWN until the server is back; %s", seen)
                .extracting(Reading::status)
                .allMatch(status -> status.equals("DOWN") || status.equals(HealthWatch.NO_ANSWER));
        assertThat(health.first(node, "UP", outage.restoredAt())).as("UP after the restart; %s", seen).isPresent();
    }

    private static Map<String, String> healthSummary(HealthWatch health, Outage outage) {
        Map<String, String> summary = new LinkedHashMap<>();
        for (String node : NODES) {
            List<String> parts = new ArrayList<>();
            health.first(node, "DOWN", outage.cutAt()).ifPresent(down -> parts.add("DOWN "
                    + millis(down.answeredAt() - outage.cutAt()) + " after the cut (" + down.reason() + ")"));
            health.first(node, "UP", outage.restoredAt()).ifPresent(up -> parts.add("UP "
                    + millis(up.answeredAt() - outage.restoredAt()) + " after the restart"));
            summary.put(node, String.join(", ", parts));
        }
        return summary;
    }

    private static Map<String, String> changes(HealthWatch health, long from) {
        Map<String, String> changes = new LinkedHashMap<>();
        NODES.forEach(node -> changes.put(node, health.changes(node, from)));
        return changes;
    }

    private static Duration millis(long nanos) {
        return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(nanos));
    }
}
