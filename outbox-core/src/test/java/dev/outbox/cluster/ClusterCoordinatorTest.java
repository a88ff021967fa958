package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.partition.Fence;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionState;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The coordinator driven by hand: heartbeats and rebalances are called explicitly, the database clock is a
 * {@link MutableClock} and each instance's monotonic clock is a counter, so every step is deterministic.
 */
class ClusterCoordinatorTest {

    private static final Duration HEARTBEAT = Duration.ofSeconds(2);
    private static final Duration STALE = Duration.ofSeconds(10);

    private final MutableClock databaseClock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryClusterStore store = new InMemoryClusterStore(databaseClock);
    private final Map<String, AtomicLong> monotonicClocks = new TreeMap<>();
    private final Set<Integer> inFlight = new HashSet<>();

    @Test
    void aSingleInstanceClaimsEveryPartitionUnderEpochOne() {
        ClusterCoordinator a = coordinator("a");

        round(a);

        assertThat(a.ownedPartitions().size()).isEqualTo(256);
        assertThat(store.findAll()).allSatisfy(row -> {
            assertThat(row.owner()).isEqualTo("a");
            assertThat(row.epoch()).isEqualTo(1);
        });
        assertThat(a.ownedPartitions().epochOf(200)).isEqualTo(1);
    }

    @Test
    void contactIsKeptWhileHeartbeatsSucceedAndLostWhenTheLeaseRunsOut() {
        ClusterCoordinator a = coordinator("a");
        assertThat(a.isInContact()).as("before the first heartbeat").isFalse();
        assertThat(a.sinceLastHeartbeat()).isEmpty();

        a.heartbeat();
        advanceMonotonic("a", Duration.ofSeconds(3));
        assertThat(a.isInContact()).isTrue();
        assertThat(a.sinceLastHeartbeat()).contains(Duration.ofSeconds(3));

        advanceMonotonic("a", STALE.minus(HEARTBEAT).minusSeconds(3));
        assertThat(a.isInContact()).as("lease = stale timeout - heartbeat interval, used up").isFalse();
        assertThat(a.isShuttingDown()).isFalse();
        a.beginShutdown();
        assertThat(a.isShuttingDown()).isTrue();
    }

    @Test
    void thePartitionListenerIsToldWhatWasGainedAndWhatWasLost() {
        List<String> changes = new java.util.ArrayList<>();
        ClusterCoordinator a = builder("a").partitionListener((gained, lost) ->
                changes.add("a +" + gained.size() + " -" + lost.size())).build();
        round(a);
        assertThat(changes).containsExactly("a +256 -0");

        ClusterCoordinator b = builder("b").partitionListener((gained, lost) ->
                changes.add("b +" + gained.size() + " -" + lost.size())).build();
        converge(List.of(a, b));

        assertThat(changes).contains("a +256 -0", "a +0 -128", "b +128 -0");
        assertThat(changes.stream().filter(change -> change.startsWith("a")).mapToInt(change ->
                Integer.parseInt(change.substring(change.indexOf('-') + 1))).sum()).isEqualTo(128);

        // Found by the per-part tests: the hand-over at close was never told, so the lost count missed it.
        changes.clear();
        b.close();
        assertThat(changes).containsExactly("b +0 -128");
    }

    @Test
    void threeInstancesSettleOn85Or86PartitionsEach() {
        List<ClusterCoordinator> nodes = List.of(coordinator("a"), coordinator("b"), coordinator("c"));

        converge(nodes);

        assertThat(ownerCounts()).containsOnlyKeys("a", "b", "c").allSatisfy((id, count) ->
                assertThat(count).isBetween(85, 86));
        for (ClusterCoordinator node : nodes) {
            assertThat(node.ownedPartitions().size()).isEqualTo(ownerCounts().get(node.instanceId()));
        }
    }

    @Test
    void aJoiningInstanceTakesOnlyWhatItNeedsAndOnlyFromTheOthers() {
        List<ClusterCoordinator> nodes = new ArrayList<>(List.of(coordinator("a"), coordinator("b"),
                coordinator("c")));
        converge(nodes);
        List<@Nullable String> before = owners();

        nodes.add(coordinator("d"));
        converge(nodes);

        List<@Nullable String> after = owners();
        int moved = 0;
        for (int partition = 0; partition < 256; partition++) {
            if (!java.util.Objects.equals(before.get(partition), after.get(partition))) {
                moved++;
                assertThat(after.get(partition)).as("partition %d moved to the newcomer only", partition)
                        .isEqualTo("d");
            }
        }
        assertThat(moved).isEqualTo(64);
        assertThat(ownerCounts().values()).containsOnly(64);
    }

    @Test
    void aPartitionInFlightIsReleasedOnlyOnceItsRecordsAreDone() {
        ClusterCoordinator a = coordinator("a");
        round(a);
        // With a second instance, a keeps 0..127 and gives 128..255 away; a record of 200 is still in flight.
        inFlight.add(200);
        ClusterCoordinator b = coordinator("b");
        converge(List.of(a, b));

        assertThat(store.findAll().get(200).owner()).as("held while in flight").isEqualTo("a");
        assertThat(a.ownedPartitions().contains(200)).as("but no longer handed out").isFalse();
        assertThat(a.ownedPartitions().size()).as("the partitions a keeps are processed throughout").isEqualTo(128);
        assertThat(b.ownedPartitions().contains(200)).isFalse();
        assertThat(ownerCounts()).containsEntry("a", 129).containsEntry("b", 127);

        inFlight.remove(200);
        converge(List.of(a, b));
        assertThat(store.findAll().get(200).owner()).isEqualTo("b");
        assertThat(store.findAll().get(200).epoch()).isEqualTo(2);
        assertThat(b.ownedPartitions().epochOf(200)).isEqualTo(2);
        assertThat(ownerCounts()).containsEntry("a", 128).containsEntry("b", 128);
    }

    @Test
    void anInstanceThatCannotHeartbeatStopsHandingOutPartitionsBeforeOthersMayClaimThem() {
        ClusterCoordinator a = coordinator("a");
        round(a);
        assertThat(a.ownedPartitions().size()).isEqualTo(256);

        // a's monotonic clock runs on without a successful heartbeat: at stale - heartbeat it stops.
        advanceMonotonic("a", STALE.minus(HEARTBEAT).minusMillis(1));
        assertThat(a.ownedPartitions().size()).isEqualTo(256);
        advanceMonotonic("a", Duration.ofMillis(1));
        assertThat(a.ownedPartitions().isEmpty()).isTrue();

        // Nobody else may claim yet: by the database's clock a is not stale.
        ClusterCoordinator b = coordinator("b");
        databaseClock.advance(STALE.minus(HEARTBEAT));
        round(b);
        assertThat(ownerCounts()).containsEntry("a", 256).doesNotContainKey("b");
    }

    @Test
    void partitionsOfADeadInstanceAreClaimedWithTheNextEpochOnceItIsStale() {
        ClusterCoordinator a = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        converge(List.of(a, b));
        Set<Integer> ofA = partitionsOf("a");

        // a dies: only b keeps heartbeating while the database clock passes the stale timeout.
        for (int second = 0; second <= STALE.toSeconds(); second += 2) {
            databaseClock.advance(HEARTBEAT);
            advanceMonotonic("b", HEARTBEAT);
            round(b);
        }

        assertThat(ownerCounts()).containsOnlyKeys("b").containsEntry("b", 256);
        for (int partition : ofA) {
            assertThat(store.findAll().get(partition).epoch()).isEqualTo(2);
            assertThat(b.ownedPartitions().epochOf(partition)).isEqualTo(2);
        }
        assertThat(store.findLive(Duration.ofDays(1))).extracting(state -> state.instanceId()).containsOnly("b");
    }

    @Test
    void aPausedInstanceThatResumesForgetsWhatItHeldAndRejoins() {
        ClusterCoordinator a = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        converge(List.of(a, b));
        long epochOfABefore = a.ownedPartitions().epochOf(partitionsOf("a").iterator().next());

        // a is frozen (no calls, its monotonic clock jumps when it resumes) while b takes over.
        for (int second = 0; second <= STALE.toSeconds(); second += 2) {
            databaseClock.advance(HEARTBEAT);
            advanceMonotonic("b", HEARTBEAT);
            round(b);
        }
        assertThat(ownerCounts()).containsEntry("b", 256);
        advanceMonotonic("a", STALE.multipliedBy(2));

        assertThat(a.ownedPartitions().isEmpty()).as("lease expired while frozen").isTrue();
        a.heartbeat();
        assertThat(a.ownedPartitions().isEmpty()).as("everything it held is forgotten on resume").isTrue();

        converge(List.of(a, b));
        assertThat(ownerCounts()).containsEntry("a", 128).containsEntry("b", 128);
        for (int partition : partitionsOf("a")) {
            assertThat(a.ownedPartitions().epochOf(partition)).isGreaterThan(epochOfABefore);
        }
    }

    @Test
    void aResumedInstanceAmongThreeGetsItsFullShareWithoutWaitingForTheSafetyNet() {
        ClusterCoordinator a = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        ClusterCoordinator c = coordinator("c");
        converge(List.of(a, b, c));

        // c is frozen past the stale timeout; a and b take everything over and settle.
        for (int second = 0; second <= STALE.toSeconds(); second += 2) {
            databaseClock.advance(HEARTBEAT);
            advanceMonotonic("a", HEARTBEAT);
            advanceMonotonic("b", HEARTBEAT);
            round(a);
            round(b);
        }
        assertThat(ownerCounts()).containsEntry("a", 128).containsEntry("b", 128);
        advanceMonotonic("c", STALE.multipliedBy(2));

        // While the others move partitions the target shifts (it favours current owners): nobody may settle early.
        for (int i = 0; i < 5; i++) {
            round(c);
            round(a);
            round(b);
        }
        assertThat(ownerCounts()).as("balanced within 5 rounds, not after 15").containsOnlyKeys("a", "b", "c")
                .allSatisfy((id, count) -> assertThat(count).as(id).isBetween(85, 86));
    }

    @Test
    void anInstanceThatForgotWhatItHeldGivesUpWhatTheTargetMovesToOthers() {
        ClusterCoordinator a = coordinator("a");
        converge(List.of(a));
        // a's lease lapses (a pause of its own, e.g. a busy machine) but not long enough for the database to call it
        // stale: it forgets its 256 partitions, which the table still shows under a, then two instances join.
        advanceMonotonic("a", STALE);
        a.heartbeat();
        assertThat(a.ownedPartitions().isEmpty()).isTrue();
        assertThat(ownerCounts()).containsEntry("a", 256);
        ClusterCoordinator b = coordinator("b");
        ClusterCoordinator c = coordinator("c");

        converge(List.of(a, b, c));

        assertThat(ownerCounts()).as("the rows a forgot are released, not held forever").containsOnlyKeys("a", "b", "c")
                .allSatisfy((id, count) -> assertThat(count).as(id).isBetween(85, 86));
    }

    @Test
    void anInstanceRestartedWithItsStableIdGivesUpWhatJoinersAreDue() {
        ClusterCoordinator a = coordinator("a");
        converge(List.of(a));

        ClusterCoordinator restarted = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        converge(List.of(restarted, b));

        assertThat(ownerCounts()).containsEntry("a", 128).containsEntry("b", 128);
    }

    @Test
    void anInstanceRestartedWithItsStableIdTakesItsOwnPartitionsBack() {
        ClusterCoordinator a = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        converge(List.of(a, b));
        Set<Integer> ofA = partitionsOf("a");

        // a crashes and comes back at once under the same id, before anyone considers it stale.
        ClusterCoordinator restarted = coordinator("a");
        converge(List.of(restarted, b));

        assertThat(partitionsOf("a")).isEqualTo(ofA);
        for (int partition : ofA) {
            assertThat(restarted.ownedPartitions().epochOf(partition)).as("claimed anew: the old run is fenced")
                    .isEqualTo(2);
        }
    }

    @Test
    void lostRemovesAPartitionFromTheProcessorsView() {
        ClusterCoordinator a = coordinator("a");
        round(a);

        a.lost(Fence.of(7, 99, "a"));
        assertThat(a.ownedPartitions().contains(7)).as("a different epoch is not ours to drop").isTrue();
        a.lost(Fence.of(7, 1, "b"));
        assertThat(a.ownedPartitions().contains(7)).as("nor another owner's").isTrue();
        a.lost(Fence.of(7, 1, "a"));
        assertThat(a.ownedPartitions().contains(7)).isFalse();
        assertThat(a.ownedPartitions().size()).isEqualTo(255);
    }

    @Test
    void gracefulShutdownReleasesEverythingAndRemovesTheInstance() {
        ClusterCoordinator a = coordinator("a");
        ClusterCoordinator b = coordinator("b");
        converge(List.of(a, b));

        a.beginShutdown();
        assertThat(a.ownedPartitions().isEmpty()).isTrue();
        round(b);
        assertThat(ownerCounts()).as("no claim of a live SHUTTING_DOWN instance's partitions").containsEntry("a", 128);

        a.close();
        assertThat(ownerCounts()).containsOnlyKeys("b");
        assertThat(store.findLive(Duration.ofDays(1))).extracting(state -> state.instanceId()).containsOnly("b");

        round(b);
        assertThat(ownerCounts()).containsEntry("b", 256);
    }

    @Test
    void noHeartbeatRegistersTheInstanceAgainOnceItHasLeft() throws InterruptedException {
        AtomicBoolean removed = new AtomicBoolean();
        List<String> callsAfterLeaving = new CopyOnWriteArrayList<>();
        CountDownLatch heartbeatAfterLeaving = new CountDownLatch(1);
        InstanceStore watched = new ForwardingInstanceStore(store) {
            @Override
            public void register(String instanceId, String hostname, int port) {
                if (removed.get()) {
                    callsAfterLeaving.add("register");
                }
                super.register(instanceId, hostname, port);
            }

            @Override
            public boolean heartbeat(String instanceId) {
                if (removed.get()) {
                    callsAfterLeaving.add("heartbeat");
                    heartbeatAfterLeaving.countDown();
                }
                return super.heartbeat(instanceId);
            }

            @Override
            public void remove(String instanceId) {
                super.remove(instanceId);
                removed.set(true);
                try {
                    // Gives a heartbeat still scheduled every 10 ms the time to run after the row has gone.
                    heartbeatAfterLeaving.await(1, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        ClusterCoordinator a = ClusterCoordinator.builder().instanceStore(watched).partitionStore(store)
                .instanceId("a").heartbeatInterval(Duration.ofMillis(10)).staleTimeout(STALE)
                .rebalanceInterval(Duration.ofMillis(10)).handling(inFlight::contains).build();
        a.start();
        a.beginShutdown();

        a.close();

        assertThat(callsAfterLeaving).as("calls to the instance table after the instance left").isEmpty();
        assertThat(store.findLive(Duration.ofDays(1))).as("instance table after close").isEmpty();
    }

    @Test
    void aSettledInstanceReadsThePartitionTableOnlyWhenMembersChangeOrAsASafetyNet() {
        AtomicInteger tableReads = new AtomicInteger();
        dev.outbox.spi.PartitionStore counting = new dev.outbox.spi.PartitionStore() {
            @Override
            public List<PartitionState> findAll() {
                tableReads.incrementAndGet();
                return store.findAll();
            }

            @Override
            public boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout) {
                return store.claim(partition, expectedEpoch, instanceId, staleTimeout);
            }

            @Override
            public boolean release(int partition, long epoch, String instanceId) {
                return store.release(partition, epoch, instanceId);
            }
        };
        ClusterCoordinator a = builder("a").partitionStore(counting).build();
        round(a); // claims everything
        round(a); // finds the table as the target has it: settled
        int afterFirst = tableReads.get();

        for (int i = 0; i < 10; i++) {
            round(a);
        }
        assertThat(tableReads.get()).as("nothing changed: no table reads").isEqualTo(afterFirst);

        ClusterCoordinator b = coordinator("b");
        b.heartbeat();
        round(a);
        assertThat(tableReads.get()).as("a member joined").isEqualTo(afterFirst + 1);
        b.rebalance();
        for (int i = 0; i < 15; i++) {
            round(a);
        }
        assertThat(tableReads.get()).as("the safety net reads the table every 15 quiet rounds").isGreaterThan(afterFirst + 1);
        assertThat(ownerCounts()).containsEntry("a", 128).containsEntry("b", 128);
    }

    @Test
    void partitionsGainedWakesTheProcessor() {
        AtomicInteger wakeUps = new AtomicInteger();
        ClusterCoordinator a = builder("a").partitionsGained(wakeUps::incrementAndGet).build();

        round(a);
        round(a);

        assertThat(wakeUps).hasValue(1);
    }

    @Test
    void settingsAreCheckedWithThePropertyNamed() {
        assertThatThrownBy(() -> builder("a").staleTimeout(HEARTBEAT).build())
                .hasMessageContaining("outbox.instance.stale-instance-timeout-seconds")
                .hasMessageContaining("must be greater than outbox.instance.heartbeat-interval-seconds");
        assertThatThrownBy(() -> builder("a").heartbeatInterval(Duration.ZERO).build())
                .hasMessageContaining("outbox.instance.heartbeat-interval-seconds must be positive");
        assertThatThrownBy(() -> builder(" ").build()).hasMessageContaining("instanceId must not be blank");
    }

    private ClusterCoordinator coordinator(String id) {
        return builder(id).build();
    }

    private ClusterCoordinator.Builder builder(String id) {
        AtomicLong monotonic = monotonicClocks.computeIfAbsent(id, key -> new AtomicLong(1_000_000_000L));
        return ClusterCoordinator.builder()
                .instanceStore(store)
                .partitionStore(store)
                .instanceId(id)
                .heartbeatInterval(HEARTBEAT)
                .staleTimeout(STALE)
                .rebalanceInterval(HEARTBEAT)
                .handling(inFlight::contains)
                .nanoClock(monotonic::get);
    }

    private void advanceMonotonic(String id, Duration duration) {
        monotonicClocks.get(id).addAndGet(duration.toNanos());
    }

    private static void round(ClusterCoordinator coordinator) {
        coordinator.heartbeat();
        coordinator.rebalance();
    }

    /** Rounds of heartbeat and rebalance on every node until the table stops changing. */
    private void converge(List<ClusterCoordinator> nodes) {
        nodes.forEach(ClusterCoordinator::heartbeat);
        List<PartitionState> previous = null;
        for (int i = 0; i < 10; i++) {
            nodes.forEach(ClusterCoordinator::rebalance);
            List<PartitionState> now = store.findAll();
            if (now.equals(previous)) {
                return;
            }
            previous = now;
        }
        throw new AssertionError("no convergence in 10 rounds: " + ownerCounts());
    }

    private List<@Nullable String> owners() {
        List<@Nullable String> owners = new ArrayList<>();
        store.findAll().forEach(row -> owners.add(row.owner()));
        return owners;
    }

    private Map<String, Integer> ownerCounts() {
        return store.findAll().stream().filter(row -> row.owner() != null)
                .collect(Collectors.toMap(PartitionState::owner, row -> 1, Integer::sum, TreeMap::new));
    }

    private Set<Integer> partitionsOf(String id) {
        return store.findAll().stream().filter(row -> id.equals(row.owner())).map(PartitionState::partition)
                .collect(Collectors.toSet());
    }
}
