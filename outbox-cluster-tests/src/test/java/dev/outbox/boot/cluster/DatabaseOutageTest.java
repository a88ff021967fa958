package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterAssertions.assertProcessingGuarantees;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static dev.outbox.boot.cluster.ProjectionChecks.assertProjectionExactlyOnce;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.boot.cluster.ClusterHarness.Duplicate;
import dev.outbox.testkit.TcpProxy;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The database goes away for 15 seconds while two node JVMs drain a backlog: a TCP proxy of the test's own between
 * the nodes and PostgreSQL drops every connection and refuses new ones, which is what a database restart or a network
 * cut looks like to a driver. The nodes must live through it, log it without flooding, and resume by themselves.
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 5, unit = TimeUnit.MINUTES)
class DatabaseOutageTest {

    private static final List<String> NODES = List.of("node-1", "node-2");
    /** Thousands of records still to go at the cut and after it: enough to show the resume, short to drain. */
    private static final int AGGREGATES = 500;
    private static final int RECORDS_PER_AGGREGATE = 10;
    private static final int RECORDS = AGGREGATES * RECORDS_PER_AGGREGATE;
    private static final Duration OUTAGE = Duration.ofSeconds(15);
    /** Each node may lose what it held at the cut: fetched records whose completions were not stored. */
    private static final int RECORDS_IN_HAND_OF_BOTH = 2 * 2 * ClusterHarness.BATCH_SIZE;
    /** Warnings and errors one node may log over the whole run, the 15-s outage included. */
    private static final int LOG_LINES_BOUND = 100;

    @Test
    void twoNodesLiveThroughA15SecondDatabaseOutageAndFinishEveryRecordInOrder(TestInfo test) throws Exception {
        try (ClusterHarness cluster = ClusterHarness.create(name(test));
                TcpProxy proxy = proxyTo(cluster.databaseAddress())) {
            cluster.routeNodesThrough(proxy.port());
            // The transactional projection handler too: its effects must survive the outage exactly once.
            cluster.startNodes(NODES, "cluster.handler-pause=10ms", "cluster.projection=true");
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            cluster.projectEveryRecord();
            cluster.insertRecords(AGGREGATES, RECORDS_PER_AGGREGATE);
            cluster.awaitCompleted(cluster.recordsInserted() / 5);

            long completedAtCut = cluster.completedCount();
            long cutAt = System.nanoTime();
            proxy.cutFor(OUTAGE);
            // The fault lasts its full length; meanwhile the nodes must stay up (the harness fails if one dies).
            cluster.awaitWhileNodesLive("database unreachable for " + OUTAGE,
                    () -> since(cutAt).compareTo(OUTAGE) >= 0);
            long completedDuringOutage = cluster.completedCount() - completedAtCut;
            long restoredAt = System.nanoTime();

            cluster.awaitCompleted(cluster.completedCount() + 1);
            Duration firstCompletion = since(restoredAt);
            cluster.awaitBalanced(NODES.toArray(String[]::new));
            Duration rebalanced = since(restoredAt);
            cluster.awaitAllCompleted();
            Duration drained = since(restoredAt);

            List<Duplicate> duplicates = cluster.duplicates();
            Map<String, Long> noisyLines = NODES.stream().collect(Collectors.toMap(node -> node,
                    node -> cluster.logLinesContaining(node, " WARN ") + cluster.logLinesContaining(node, " ERROR ")));
            report(test, "outage of %s with %d of %d records completed (%d more counted after the cut: commits "
                    + "already sent when it came); after the restore: first completion %s, balanced %s, all %d "
                    + "completed %s; %d records handled twice (bound %d); WARN+ERROR lines per node %s; order "
                    + "violations %d", OUTAGE, completedAtCut, cluster.recordsInserted(), completedDuringOutage,
                    firstCompletion, rebalanced, cluster.recordsInserted(), drained, duplicates.size(),
                    RECORDS_IN_HAND_OF_BOTH, noisyLines, cluster.orderViolations().size());
            assertProcessingGuarantees(cluster);
            assertProjectionExactlyOnce(test, cluster);
            assertThat(duplicates).as("records handled twice: only those in hand at the cut")
                    .hasSizeLessThanOrEqualTo(RECORDS_IN_HAND_OF_BOTH);
            assertThat(noisyLines).as("the outage is logged without flooding")
                    .allSatisfy((node, lines) -> assertThat(lines).as(node).isLessThanOrEqualTo(LOG_LINES_BOUND));
        }
    }

    private static TcpProxy proxyTo(InetSocketAddress database) {
        return TcpProxy.to(database.getHostString(), database.getPort());
    }
}
