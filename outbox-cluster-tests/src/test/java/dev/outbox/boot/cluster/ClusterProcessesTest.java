package dev.outbox.boot.cluster;

import static dev.outbox.boot.cluster.ClusterHarness.HEARTBEAT_INTERVAL;
import static dev.outbox.boot.cluster.ClusterHarness.POLL_INTERVAL;
import static dev.outbox.boot.cluster.ClusterHarness.REBALANCE_INTERVAL;
import static dev.outbox.boot.cluster.ClusterHarness.STALE_TIMEOUT;
import static dev.outbox.boot.cluster.ClusterAssertions.assertHandledExactlyOnce;
import static dev.outbox.boot.cluster.ClusterAssertions.assertProcessingGuarantees;
import static dev.outbox.boot.cluster.ClusterAssertions.assertReleasedThenClaimedBefore;
import static dev.outbox.boot.cluster.ClusterAssertions.name;
import static dev.outbox.boot.cluster.ClusterAssertions.report;
import static dev.outbox.boot.cluster.ClusterAssertions.since;
import static dev.outbox.boot.cluster.ProjectionChecks.assertProjectionExactlyOnce;
import static dev.outbox.boot.cluster.ProjectionChecks.assertStaleOwnersCallsRolledBack;
import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.boot.cluster.ClusterHarness.Departure;
import dev.outbox.boot.cluster.ClusterHarness.Duplicate;
import dev.outbox.boot.cluster.ClusterHarness.HandlerCall;
import dev.outbox.boot.cluster.ClusterHarness.OwnershipChange;
import dev.outbox.boot.cluster.ClusterHarness.RecordCall;
import dev.outbox.jdbc.testing.TestDatabase;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The cluster as it runs in production: every instance a JVM of its own ({@link ClusterNodeApplication}) on one
 * PostgreSQL database, killed, frozen and stopped with real signals. Each scenario has a database of its own. The
 * measured numbers are printed to the test output ({@code target/surefire-reports/*-output.txt}).
 */
@ExtendWith(NodeLogsOnFailure.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class ClusterProcessesTest {

    private static final List<String> THREE_NODES = List.of("node-1", "node-2", "node-3");
    private static final List<String> FOUR_NODES = List.of("node-1", "node-2", "node-3", "node-4");

    private static final int AGGREGATES = 2_000;
    private static final int RECORDS_PER_AGGREGATE = 10;
    private static final int RECORDS = AGGREGATES * RECORDS_PER_AGGREGATE;
    /**
     * The backlog of the kill, freeze and stop scenarios: the fault comes once a fifth is done, with thousands of
     * records still to go; half the drain's, since those scenarios measure the fault, not the throughput.
     */
    private static final int FAULT_AGGREGATES = 1_000;
    /**
     * Records a node holds at one time (fetched and not yet stored): a node killed or frozen mid-run can leave at most
     * this many handled but not stored behind. The engine fetches again when half a batch is left in hand.
     */
    private static final int RECORDS_IN_HAND = 2 * ClusterHarness.BATCH_SIZE;

    /** A handler that takes a while, like a broker round trip: keeps records in flight and the backlog draining. */
    private static final String SLOW_HANDLER = "cluster.handler-pause=15ms";
    /**
     * The transactional {@link ProjectionWriter} next to the plain handler: the fault scenarios insert every record
     * for both ({@link ClusterHarness#projectEveryRecord()}) and show the plain one's duplicates next to the
     * projection's none.
     */
    private static final String PROJECTION = "cluster.projection=true";

    /** The longest a dead instance's partitions should wait for a new owner, by the configuration. */
    private static final Duration TAKEOVER_BOUND =
            STALE_TIMEOUT.plus(HEARTBEAT_INTERVAL).plus(REBALANCE_INTERVAL).plus(POLL_INTERVAL);
    /** For a small and noisy machine. */
    private static final Duration TAKEOVER_SLACK = Duration.ofSeconds(10);
    /** How long after {@code kill -STOP} returns a frozen JVM's threads may still have been running. */
    private static final Duration SIGNAL_SETTLE = Duration.ofMillis(500);

    @Test
    void threeInstancesDrainTwentyThousandRecords(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            startBalanced(cluster, THREE_NODES);

            long started = System.nanoTime();
            cluster.insertRecords(AGGREGATES, RECORDS_PER_AGGREGATE);
            cluster.awaitAllCompleted();
            Duration drained = since(started);

            PartitionTable table = cluster.partitionTable();
            report(test, "%d records over %d aggregates drained in %s (%.0f records/s); %s; handler calls %s",
                    RECORDS, AGGREGATES, drained, RECORDS * 1000.0 / drained.toMillis(), table,
                    cluster.handlerCallsPerInstance());
            assertThat(table.countsByOwner()).as("%s", table).containsOnlyKeys(THREE_NODES)
                    .allSatisfy((node, count) -> assertThat(count).as(node).isBetween(85, 86));
            assertHandledExactlyOnce(cluster);
            assertProcessingGuarantees(cluster);
        }
    }

    @Test
    // The fault scenarios' backlog, twice over (the projection handler's copies), with slow handlers: the feeder
    // keeps records flowing however long node-4 takes to start.
    @Timeout(value = 6, unit = TimeUnit.MINUTES)
    void aFourthInstanceJoiningMidRunTakesItsShareOnlyFromTheOthers(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            // Slower handlers, so that records are still flowing when the new JVM has started and joins.
            startBalanced(cluster, THREE_NODES, SLOW_HANDLER, PROJECTION);
            cluster.projectEveryRecord();
            cluster.insertRecords(FAULT_AGGREGATES, RECORDS_PER_AGGREGATE);
            long insertedBeforeJoin = cluster.recordsInserted();
            cluster.awaitCompleted(insertedBeforeJoin / 4);

            PartitionTable beforeJoin = cluster.partitionTable();
            long completedAtJoin = cluster.completedCount();
            Instant joinStarted = Instant.now();
            long started = System.nanoTime();
            PartitionTable afterJoin;
            long pendingWhenBalanced;
            // However long the JVM takes to start on a loaded machine, records are still flowing when it joins.
            BacklogFeeder feeder = BacklogFeeder.start(cluster, AGGREGATES);
            try {
                cluster.startNode("node-4", SLOW_HANDLER, PROJECTION);
                cluster.awaitUp("node-4");
                afterJoin = cluster.awaitBalanced(FOUR_NODES.toArray(String[]::new));
                pendingWhenBalanced = cluster.statusCounts().getOrDefault("NEW", 0L);
            } finally {
                feeder.close();
            }
            Duration rebalanced = since(started);
            cluster.awaitAllCompleted();

            List<Integer> moved = beforeJoin.partitionsWithOtherOwnerIn(afterJoin);
            List<OwnershipChange> claimsSinceJoin = cluster.ownershipChanges().stream()
                    .filter(change -> !change.isRelease() && change.changedAt().isAfter(joinStarted)).toList();
            report(test, "before join %s (%d of %d records completed); balanced again %s after starting node-4: %s "
                    + "(%d records pending); %d records in all; %d partitions moved; handler calls %s", beforeJoin,
                    completedAtJoin, insertedBeforeJoin, rebalanced, afterJoin, pendingWhenBalanced,
                    cluster.recordsInserted(), moved.size(), cluster.handlerCallsPerInstance());
            assertThat(beforeJoin.isBalancedAmong(THREE_NODES)).as("before the join: %s", beforeJoin).isTrue();
            assertThat(afterJoin.countsByOwner()).as("%s", afterJoin).containsOnlyKeys(FOUR_NODES)
                    .allSatisfy((node, count) -> assertThat(count).as(node).isEqualTo(64));
            assertThat(moved).as("partitions that changed owner").hasSizeLessThanOrEqualTo(64)
                    .allSatisfy(partition -> assertThat(afterJoin.ownerOf(partition))
                            .as("new owner of partition %d", partition).isEqualTo("node-4"));
            assertThat(claimsSinceJoin).as("claims since node-4 started")
                    .allSatisfy(claim -> assertThat(claim.newOwner()).as("%s", claim).isEqualTo("node-4"));
            assertThat(pendingWhenBalanced).as("records pending when balanced again").isPositive();
            assertThat(cluster.handlerCallsPerInstance()).as("handler calls").containsKey("node-4");
            assertHandledExactlyOnce(cluster);
            assertProcessingGuarantees(cluster);
            assertProjectionExactlyOnce(test, cluster);
        }
    }

    @Test
    void aKilledInstancesPartitionsAreTakenOverOnceItIsStale(TestInfo test) {
        killAnInstanceOfThree(test, TestDatabase.Kind.POSTGRES);
    }

    @Test
    void onMariaDbTooAKilledInstancesPartitionsAreTakenOverOnceItIsStale(TestInfo test) {
        killAnInstanceOfThree(test, TestDatabase.Kind.MARIADB);
    }

    private static void killAnInstanceOfThree(TestInfo test, TestDatabase.Kind kind) {
        // The projection handler's tables are PostgreSQL's.
        boolean projecting = kind == TestDatabase.Kind.POSTGRES;
        try (ClusterHarness cluster = ClusterHarness.create(name(test), kind)) {
            startBalanced(cluster, THREE_NODES, projecting ? PROJECTION : "cluster.projection=false");
            if (projecting) {
                cluster.projectEveryRecord();
            }
            cluster.insertRecords(FAULT_AGGREGATES, RECORDS_PER_AGGREGATE);
            cluster.awaitCompleted(cluster.recordsInserted() / 5);

            Set<Integer> orphaned = cluster.partitionTable().partitionsOf("node-2");
            // Only what follows the kill: a loaded machine may have let node-2 go stale, and lose partitions, before.
            long changesBeforeKill = cluster.lastOwnershipChange();
            long completedAtKill = cluster.completedCount();
            long killed = System.nanoTime();
            cluster.kill9("node-2");
            PartitionTable takenOver = cluster.awaitTakenOver("node-2", orphaned);
            Duration takeover = since(killed);
            PartitionTable survivors = cluster.awaitBalanced("node-1", "node-3");
            cluster.awaitAllCompleted();

            List<Duplicate> duplicates = cluster.duplicates();
            Duration silence = assertTakenOverOnlyOnceStale(cluster.ownershipChangesAfter(changesBeforeKill), "node-2",
                    orphaned, cluster.lastHeartbeatOf("node-2"));
            report(test, "%s: kill -9 of node-2 (%d partitions) with %d of %d records completed; all owned by "
                    + "others after %s (bound: stale %s + heartbeat %s + rebalance %s + poll %s = %s, plus slack %s); "
                    + "first takeover claim %s after its last heartbeat; then %s; survivors %s; "
                    + "%d records handled twice %s; handler calls %s", kind, orphaned.size(), completedAtKill,
                    cluster.recordsInserted(), takeover, STALE_TIMEOUT, HEARTBEAT_INTERVAL, REBALANCE_INTERVAL,
                    POLL_INTERVAL, TAKEOVER_BOUND, TAKEOVER_SLACK, silence, takenOver, survivors, duplicates.size(),
                    duplicates, cluster.handlerCallsPerInstance());
            assertThat(takeover).as("takeover time").isLessThanOrEqualTo(TAKEOVER_BOUND.plus(TAKEOVER_SLACK));
            assertThat(survivors.countsByOwner()).containsOnlyKeys("node-1", "node-3")
                    .allSatisfy((node, count) -> assertThat(count).as(node).isEqualTo(128));
            assertThat(duplicates).as("records handled twice: only those in flight on node-2")
                    .hasSizeLessThanOrEqualTo(RECORDS_IN_HAND)
                    .allSatisfy(duplicate -> assertThat(duplicate.handledBy()).as(duplicate.recordId())
                            .hasSize(2).first().isEqualTo("node-2"));
            assertProcessingGuarantees(cluster);
            if (projecting) {
                assertProjectionExactlyOnce(test, cluster);
            }
        }
    }

    @Test
    void aFrozenInstanceLosesItsPartitionsAndWritesNothingForThemWhenItWakesUp(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            // Slower handlers: node-3 is then almost surely frozen inside some, which finish after the resume and
            // try to store their outcome under the lost epoch, which the fence must refuse.
            startBalanced(cluster, THREE_NODES, SLOW_HANDLER, PROJECTION);
            cluster.projectEveryRecord();
            // Node-3 freezes inside a projection transaction, for sure, and while the others are busy: a fifth into
            // the backlog, a record in each partition holds its transaction open on node-3 (once, only there) for
            // seconds; the freeze follows its logged call.
            long logMark = cluster.logMark("node-3");
            cluster.insertRecords(FAULT_AGGREGATES, RECORDS_PER_AGGREGATE / 5);
            cluster.insertHeldProjectionRecords("node-3");
            cluster.insertRecords(FAULT_AGGREGATES, RECORDS_PER_AGGREGATE - RECORDS_PER_AGGREGATE / 5);
            String held = cluster.awaitLogLine("node-3", logMark, ProjectionWriter.HOLD_LINE).group(1);

            Set<Integer> frozen = cluster.partitionTable().partitionsOf("node-3");
            long changesBeforeFreeze = cluster.lastOwnershipChange();
            long stopped = System.nanoTime();
            cluster.sigstop("node-3");
            // Read after the signal: a handler call begun later than this began after the resume.
            Instant stoppedAt = Instant.now();
            PartitionTable takenOver = cluster.awaitTakenOver("node-3", frozen);
            Duration takeover = since(stopped);
            long completedAtResume = cluster.completedCount();
            long insertedAtResume = cluster.recordsInserted();
            List<OwnershipChange> changesWhileFrozen = cluster.ownershipChangesAfter(changesBeforeFreeze);
            Instant lastHeartbeat = cluster.lastHeartbeatOf("node-3");

            Instant resumed = Instant.now();
            long resumedNanos = System.nanoTime();
            cluster.sigcont("node-3");
            PartitionTable rejoined = cluster.awaitBalanced(THREE_NODES.toArray(String[]::new));
            Duration rejoin = since(resumedNanos);
            // A second wave, so that node-3 certainly processes again after its return.
            cluster.insertRecords(FAULT_AGGREGATES, 1);
            cluster.awaitAllCompleted();

            Duration silence = assertTakenOverOnlyOnceStale(changesWhileFrozen, "node-3", frozen, lastHeartbeat);
            List<HandlerCall> callsAfterResume = cluster.callsOf("node-3", resumed);
            List<HandlerCall> callsUnderLostEpochs = callsAfterResume.stream()
                    .filter(call -> call.epoch() <= takenOver.epochOf(call.partition())).toList();
            List<Duplicate> duplicates = cluster.duplicates();
            report(test, "SIGSTOP of node-3 (%d partitions): all owned by others after %s, the first takeover claim "
                    + "%s after its last heartbeat; SIGCONT with %d of %d records completed; balanced again %s "
                    + "later: %s; node-3 after resume: %d handler calls frozen mid-call, %d status writes refused "
                    + "(its log), %d new handler calls (%d under a lost epoch), %d status writes; "
                    + "%d records handled twice %s; handler calls %s", frozen.size(), takeover, silence,
                    completedAtResume, insertedAtResume, rejoin, rejoined,
                    cluster.callsSpanning("node-3", stoppedAt, resumed),
                    cluster.logLinesContaining("node-3", "its outcome was not stored"), callsAfterResume.size(),
                    callsUnderLostEpochs.size(), cluster.statusWritesBy("node-3", resumed), duplicates.size(),
                    duplicates, cluster.handlerCallsPerInstance());
            assertThat(takeover).as("takeover time").isLessThanOrEqualTo(TAKEOVER_BOUND.plus(TAKEOVER_SLACK));
            assertThat(rejoined.partitionsOf("node-3")).as("node-3 rejoined").hasSizeBetween(85, 86);
            assertThat(callsAfterResume).as("node-3 handled records after its return").isNotEmpty();
            assertThat(callsUnderLostEpochs).as("node-3 handler calls after resume under an epoch it had lost")
                    .isEmpty();
            // kill returns when the signal is sent; on a busy machine a thread may still run for a moment, so a call
            // begun within SIGNAL_SETTLE of it counts as begun before the freeze. Calls after the resume come seconds
            // later (the stale timeout), far beyond it.
            // A record handled twice was in node-3's hand when it froze: handled, its completion not yet stored (then
            // refused by the fence). It is handled again under a later epoch, by the partition's owner at that time,
            // which may be node-3 again once it has rejoined.
            Instant frozenAt = stoppedAt.plus(SIGNAL_SETTLE);
            assertThat(duplicates).as("records handled twice: only those in hand on node-3 when it froze")
                    .hasSizeLessThanOrEqualTo(RECORDS_IN_HAND)
                    .allSatisfy(duplicate -> {
                        List<RecordCall> calls = cluster.callsOfRecord(duplicate.recordId());
                        assertThat(calls).as(duplicate.recordId()).hasSize(2);
                        RecordCall first = calls.stream().min(Comparator.comparing(RecordCall::invokedAt))
                                .orElseThrow();
                        RecordCall second = calls.stream().filter(call -> call != first).findFirst().orElseThrow();
                        assertThat(first.instanceId()).as("first call of %s", duplicate.recordId())
                                .isEqualTo("node-3");
                        assertThat(first.invokedAt()).as("first call of %s began before the freeze",
                                duplicate.recordId()).isBefore(frozenAt);
                        assertThat(second.epoch()).as("second call of %s under a later epoch", duplicate.recordId())
                                .isGreaterThan(first.epoch());
                    });
            assertThat(cluster.recordsCompletedTwice()).as("records completed twice").isEmpty();
            assertProcessingGuarantees(cluster);
            assertProjectionExactlyOnce(test, cluster);
            int rolledBack = assertStaleOwnersCallsRolledBack(cluster, "node-3", frozen, takenOver, held);
            report(test, "node-3's projection calls under lost epochs whose writes were rolled back (its completions "
                    + "refused): %d records, each projected once by a later owner", rolledBack);
        }
    }

    @Test
    void aGracefullyStoppedInstanceHandsItsPartitionsOverBeforeItWouldBeStale(TestInfo test) {
        try (ClusterHarness cluster = ClusterHarness.create(name(test))) {
            startBalanced(cluster, THREE_NODES, PROJECTION);
            cluster.projectEveryRecord();
            cluster.insertRecords(FAULT_AGGREGATES, RECORDS_PER_AGGREGATE);
            cluster.awaitCompleted(cluster.recordsInserted() / 5);

            Set<Integer> handedOver = cluster.partitionTable().partitionsOf("node-2");
            long completedAtStop = cluster.completedCount();
            long terminated = System.nanoTime();
            cluster.sigterm("node-2");
            PartitionTable takenOver = cluster.awaitTakenOver("node-2", handedOver);
            Duration handover = since(terminated);
            int exitCode = cluster.awaitExit("node-2");
            Duration exit = since(terminated);
            PartitionTable survivors = cluster.awaitBalanced("node-1", "node-3");
            cluster.awaitAllCompleted();

            List<Departure> departures = cluster.departuresOf("node-2");
            Instant staleFrom = cluster.lastHeartbeatOf("node-2").plus(STALE_TIMEOUT);
            List<OwnershipChange> changes = cluster.ownershipChanges();
            report(test, "SIGTERM of node-2 (%d partitions) with %d of %d records completed: all owned by others "
                    + "after %s (stale timeout %s), JVM gone within %s, exit code %d; %s; survivors %s; "
                    + "departures %s; handler calls %s", handedOver.size(), completedAtStop, cluster.recordsInserted(),
                    handover, STALE_TIMEOUT, exit, exitCode, takenOver, survivors, departures,
                    cluster.handlerCallsPerInstance());
            assertThat(cluster.isRegistered("node-2")).as("node-2 still in outbox_instance").isFalse();
            assertThat(departures).as("node-2 removed its own row")
                    .singleElement().extracting(Departure::removedBy).isEqualTo("node-2");
            for (int partition : handedOver) {
                assertReleasedThenClaimedBefore(changes, partition, "node-2", staleFrom);
            }
            assertThat(survivors.countsByOwner()).containsOnlyKeys("node-1", "node-3")
                    .allSatisfy((node, count) -> assertThat(count).as(node).isEqualTo(128));
            assertHandledExactlyOnce(cluster);
            assertProcessingGuarantees(cluster);
            assertProjectionExactlyOnce(test, cluster);
        }
    }

    private static void startBalanced(ClusterHarness cluster, List<String> nodes, String... extraProperties) {
        long started = System.nanoTime();
        cluster.startNodes(nodes, extraProperties);
        PartitionTable table = cluster.awaitBalanced(nodes.toArray(String[]::new));
        System.out.printf("  %s up and balanced after %s: %s%n", nodes, since(started), table);
    }

    /**
     * Every partition of {@code formerOwner} went straight to another instance (it could not release them), each
     * partition once, and only once the former owner was stale by the database's clock: more than the stale timeout
     * after its last heartbeat. Returns the time from that heartbeat to the first takeover claim.
     */
    private static Duration assertTakenOverOnlyOnceStale(List<OwnershipChange> changes, String formerOwner,
            Set<Integer> partitions, Instant lastHeartbeat) {
        Instant staleFrom = lastHeartbeat.plus(STALE_TIMEOUT);
        // Releases (start-up balancing) and an instance's claims of its own partitions are no takeovers.
        List<OwnershipChange> takeovers = changes.stream()
                .filter(change -> formerOwner.equals(change.oldOwner()) && !change.isRelease()
                        && !formerOwner.equals(change.newOwner()))
                .toList();
        assertThat(takeovers).extracting(OwnershipChange::partition).as("partitions taken from %s", formerOwner)
                .containsExactlyInAnyOrderElementsOf(partitions);
        assertThat(takeovers).allSatisfy(takeover -> {
            assertThat(takeover.changedAt()).as("%s, %s stale from %s", takeover, formerOwner, staleFrom)
                    .isAfter(staleFrom);
        });
        return Duration.between(lastHeartbeat, takeovers.get(0).changedAt());
    }
}
