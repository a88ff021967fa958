package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.assertProcessingGuarantees;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static org.assertj.core.api.Assertions.assertThat;

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
 * While two node JVMs drain a backlog that keeps coming, every session they have on the database is ended with
 * {@code pg_terminate_backend} ({@link #ROUNDS} times, {@link #ROUND_INTERVAL} apart), as an administrator or a
 * connection-killing proxy would: pooled connections, the heartbeat's reserved one and the LISTEN one all break in the
 * middle of their work. The nodes must carry on by themselves, finish every record in each aggregate's order, and say
 * UP again afterwards.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class TerminatedSessionsTest {

    private static final List<String> NODES = List.of("node-1", "node-2");
    /** The feeder keeps about this many records pending: one for each aggregate. */
    private static final int AGGREGATES = 200;
    private static final int ROUNDS = 5;
    private static final Duration ROUND_INTERVAL = Duration.ofMillis(1_500);
    /** Each node may lose what it held at each round: fetched records whose completions were not stored. */
    private static final int RECORDS_IN_HAND_OF_BOTH = 2 * 2 * ClusterHarness.BATCH_SIZE;

    @Test
    void twoNodesCarryOnWhenEveryOneOfTheirSessionsIsTerminatedAgainAndAgain(TestInfo test) throws Exception {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            long startedAt = System.nanoTime();
            Map<String, URI> web = cluster.startWebNodes(NODES, "cluster.handler-pause=10ms",
                    "outbox.metrics.refresh-interval=1s");
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            try (HealthWatch health = HealthWatch.start(web)) {
                health.awaitEvery(cluster, "UP", startedAt);
                List<Integer> terminated = new ArrayList<>();
                long firstRoundAt;
                long lastRoundAt;
                long completedAtLastRound;
                Duration resumed;
                try (BacklogFeeder feeder = BacklogFeeder.start(cluster, AGGREGATES)) {
                    cluster.awaitCompleted(2L * AGGREGATES);
                    firstRoundAt = System.nanoTime();
                    lastRoundAt = firstRoundAt;
                    for (int round = 0; round < ROUNDS; round++) {
                        if (round > 0) {
                            long previous = lastRoundAt;
                            cluster.awaitWhileNodesLive("the next round of terminations", () ->
                                    since(previous).compareTo(ROUND_INTERVAL) >= 0);
                        }
                        terminated.add(cluster.terminateSessionsOf(NODES));
                        lastRoundAt = System.nanoTime();
                    }
                    completedAtLastRound = cluster.completedCount();
                    // Every aggregate moves on again: a round of records completed after the last terminations.
                    cluster.awaitCompleted(completedAtLastRound + AGGREGATES);
                    resumed = since(lastRoundAt);
                }
                cluster.awaitAllCompleted();
                Duration drained = since(lastRoundAt);
                health.awaitEvery(cluster, "UP", lastRoundAt);

                Map<String, String> healthSeen = new LinkedHashMap<>();
                NODES.forEach(node -> healthSeen.put(node, health.changes(node, firstRoundAt)));
                Map<String, Long> retried = new LinkedHashMap<>();
                NODES.forEach(node -> retried.put(node, cluster.logLinesContaining(node, "failed on attempt")));
                report(test, "sessions terminated per round %s, %s apart; %d more records completed %s after the last "
                        + "round, all %d completed %s after it; %d handled twice; handler attempts failed per node %s;"
                        + " order violations %d; health from the first round: %s", terminated, ROUND_INTERVAL,
                        AGGREGATES, resumed, cluster.recordsInserted(), drained, cluster.duplicates().size(), retried,
                        cluster.orderViolations().size(), healthSeen);

                assertThat(terminated).as("sessions of the nodes ended in each round").allMatch(count -> count > 0);
                assertProcessingGuarantees(cluster);
                assertThat(cluster.duplicates()).as("records handled twice: only those in hand at the terminations")
                        .hasSizeLessThanOrEqualTo(ROUNDS * RECORDS_IN_HAND_OF_BOTH);
                assertThat(NODES).as("outbox health after the terminations").allSatisfy(node ->
                        assertThat(health.latest(node).orElseThrow().status()).as(node).isEqualTo("UP"));
            }
        }
    }
}
