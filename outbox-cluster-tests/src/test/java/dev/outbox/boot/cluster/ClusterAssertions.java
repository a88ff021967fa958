package dev.outbox.boot.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.cluster.ClusterHarness.OwnershipChange;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.TestInfo;

/** Assertions and small helpers shared by the cluster tests. */
final class ClusterAssertions {

    private ClusterAssertions() {
    }

    /** What holds in every scenario: all done, each at least once, in order, and only owners write statuses. */
    static void assertProcessingGuarantees(ClusterHarness cluster) {
        assertThat(cluster.statusCounts()).as("records by status")
                .isEqualTo(Map.of("COMPLETED", cluster.recordsInserted()));
        assertThat(cluster.distinctRecordsHandled()).as("distinct records handled")
                .isEqualTo(cluster.processorRecordsInserted());
        assertThat(cluster.orderViolations()).as("per-aggregate order of first handlings").isEmpty();
        assertThat(cluster.statusWritesByNonOwners()).as("status writes by an instance not owning the partition")
                .isEmpty();
        assertThat(cluster.recordsCompletedTwice()).as("records completed twice").isEmpty();
    }

    static void assertHandledExactlyOnce(ClusterHarness cluster) {
        assertThat(cluster.duplicates()).as("records handled more than once").isEmpty();
        assertThat(cluster.handlerCalls()).as("handler calls").isEqualTo(cluster.processorRecordsInserted());
    }

    /**
     * The partition left {@code formerOwner} by its own release (not by a takeover), and the next claim of it came
     * before {@code deadline}.
     */
    static void assertReleasedThenClaimedBefore(List<OwnershipChange> changes, int partition, String formerOwner,
            Instant deadline) {
        List<OwnershipChange> ofPartition = changes.stream().filter(change -> change.partition() == partition)
                .toList();
        // A claim of its own partition is no departure: an owner whose heartbeat stalled (a loaded machine) drops its
        // partitions and claims them anew under a new epoch, as it must.
        List<OwnershipChange> departures = ofPartition.stream()
                .filter(change -> formerOwner.equals(change.oldOwner()) && !formerOwner.equals(change.newOwner()))
                .toList();
        assertThat(departures).as("partition %d left %s by its release: %s", partition, formerOwner, ofPartition)
                .singleElement().satisfies(release -> {
                    assertThat(release.isRelease()).isTrue();
                    assertThat(release.changedBy()).isEqualTo(formerOwner);
                });
        OwnershipChange nextClaim = ofPartition.stream().skip(ofPartition.indexOf(departures.get(0)) + 1L)
                .filter(change -> !change.isRelease()).findFirst().orElse(null);
        assertThat(nextClaim).as("claim of partition %d after its release: %s", partition, ofPartition).isNotNull();
        assertThat(nextClaim.changedAt()).as("%s, before %s", nextClaim, deadline).isBefore(deadline);
    }

    static String name(TestInfo test) {
        return test.getTestMethod().orElseThrow().getName();
    }

    static Duration since(long startNanos) {
        return Duration.ofMillis(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
    }

    /** Prints a measurement into the test output, tagged with the test's name. */
    static void report(TestInfo test, String format, Object... arguments) {
        System.out.printf("[" + name(test) + "] " + format + "%n", arguments);
    }

    /** A TCP port of 127.0.0.1 free at the moment, for a server the test starts (a node's web server, a database). */
    static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }
}
