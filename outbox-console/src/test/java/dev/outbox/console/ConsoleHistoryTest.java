package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.console.ConsoleHistory.History;
import dev.outbox.console.ConsoleHistory.Sample;
import dev.outbox.console.ConsoleViews.DepartedInstance;
import dev.outbox.console.ConsoleViews.OperationsState;
import dev.outbox.console.ConsoleViews.Overview;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * The history's samples, retention, cap, claims, drain rate and departed instances, over snapshots of fake stores and
 * an in-memory instance table on a moved clock.
 */
class ConsoleHistoryTest {

    private static final Instant START = Instant.parse("2026-01-01T10:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final FakeStores stores = new FakeStores();
    private final OutboxMonitor monitor = OutboxMonitor.builder().statistics(stores).partitions(stores).clock(clock)
            .build();
    /** The instance table of a cluster, on the same clock; a heartbeat within the hour keeps an instance live. */
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final OutboxMonitor clusterMonitor = OutboxMonitor.builder().statistics(stores).partitions(stores)
            .instances(cluster, Duration.ofHours(1)).clock(clock).build();

    @Test
    void keepsOneSamplePerDistinctSnapshotWithItsCounts() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        stores.counts(5, 2, 10);
        OutboxSnapshot first = monitor.refresh();
        history.record(first);
        history.record(first);
        clock.advance(Duration.ofSeconds(10));
        stores.counts(3, 2, 12);
        OutboxSnapshot second = monitor.refresh();
        history.record(second);
        history.record(first);

        assertThat(history.history().samples()).containsExactly(new Sample(START, 5, 2, 0),
                new Sample(START.plusSeconds(10), 3, 2, 0));
    }

    @Test
    void countsDeferredRecords() {
        OutboxMonitor local = OutboxMonitor.builder().statistics(stores).countCompletedRecords(true).clock(clock)
                .capabilities(new InstanceCapabilities(Set.of("billing"), Set.of(), false, null)).build();
        stores.backlog = List.of(new PartitionBacklog(3, "shipping", 4, START), new PartitionBacklog(4, "billing", 2,
                START));
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        history.record(local.refresh());

        assertThat(history.history().samples()).extracting(Sample::deferred).containsExactly(4L);
    }

    @Test
    void dropsSamplesOlderThanAnHourAndBeyondTheCap() {
        ConsoleHistory history = new ConsoleHistory(clock, 3, null);
        for (int minute = 0; minute < 5; minute++) {
            stores.counts(minute, 0, 0);
            history.record(monitor.refresh());
            clock.advance(Duration.ofMinutes(1));
        }
        assertThat(history.history().samples()).extracting(Sample::pending).as("the cap").containsExactly(2L, 3L, 4L);

        clock.set(START.plus(Duration.ofHours(1)).plus(Duration.ofMinutes(3)).plusSeconds(1));
        assertThat(history.history().samples()).extracting(Sample::pending).as("older than an hour, when read")
                .containsExactly(4L);
        clock.advance(Duration.ofHours(1));
        assertThat(history.history().samples()).isEmpty();
    }

    @Test
    void aGrownEpochCountsOneClaimForTheNewOwner() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        stores.partitions(state(0, "node-a", 1), state(1, "node-a", 1), state(2, "node-b", 1), state(3, null, 4));
        history.record(monitor.refresh());
        assertThat(history.history().epochChanges()).as("nothing to compare the first snapshot with").isEmpty();

        clock.advance(Duration.ofSeconds(10));
        // 0 taken over by node-b, 1 released and claimed again by node-c (two epochs, one claim), 3 claimed by node-a
        stores.partitions(state(0, "node-b", 2), state(1, "node-c", 3), state(2, "node-b", 1), state(3, "node-a", 5));
        history.record(monitor.refresh());
        clock.advance(Duration.ofSeconds(10));
        // 2 released: no owner to count
        stores.partitions(state(0, "node-b", 2), state(1, "node-c", 3), state(2, null, 2), state(3, "node-a", 5));
        history.record(monitor.refresh());
        clock.advance(Duration.ofSeconds(10));
        stores.partitions(state(0, "node-b", 2), state(1, "node-c", 3), state(2, "node-b", 3), state(3, "node-a", 5));
        history.record(monitor.refresh());

        assertThat(history.history().epochChanges()).isEqualTo(Map.of("node-a", 1, "node-b", 2, "node-c", 1));

        clock.set(START.plus(Duration.ofHours(1)).plusSeconds(15));
        assertThat(history.history().epochChanges()).as("the claims of samples no longer retained go with them")
                .isEqualTo(Map.of("node-b", 1));
    }

    @Test
    void theDrainRateSumsTheGrowthOfEachInstancesPublishedCountOverTheLastMinute() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, () -> 1_000_000);
        cluster.register("node-a", "host-a", 8080);
        cluster.register("node-b", "host-b", 8080);
        stores.counts(0, 0, 0); // no COMPLETED count: the rate does not need one
        beat("node-a", 0);
        beat("node-b", 1000);
        history.record(clusterMonitor.refresh());
        assertThat(history.history().drainRate().completedPerSecond()).as("one sample").isNull();
        assertThat(history.history().drainRate().unknownBecause()).contains("fewer than two samples");

        clock.advance(Duration.ofSeconds(10));
        beat("node-a", 30);
        beat("node-b", 1010);
        history.record(clusterMonitor.refresh());
        assertThat(history.history().drainRate().completedPerSecond()).as("a shorter history").isEqualTo(4.0);

        // 100 a second at first, then node-a 3 and node-b 2 a second over the last minute
        for (int tick = 1; tick <= 12; tick++) {
            clock.advance(Duration.ofSeconds(10));
            beat("node-a", tick <= 6 ? 30 + tick * 500L : 3030 + (tick - 6) * 30L);
            beat("node-b", tick <= 6 ? 1010 + tick * 500L : 4010 + (tick - 6) * 20L);
            history.record(clusterMonitor.refresh());
        }
        History now = history.history();
        assertThat(now.drainRate().completedPerSecond()).as("not the local count: instances publish theirs")
                .isEqualTo(5.0);
        assertThat(now.drainRate().overSeconds()).isEqualTo(60.0);
        assertThat(now.drainRate().unknownBecause()).isNull();
    }

    @Test
    void anInstanceWhoseCountFellRestartedAndGrewFromZero() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        cluster.register("node-a", "host-a", 8080);
        for (long completed : new long[] {100, 200, 50, 150}) {
            beat("node-a", completed);
            history.record(clusterMonitor.refresh());
            clock.advance(Duration.ofSeconds(10));
        }
        // 100, then a restart and 50 from 0, then 100: 250 over 30 s
        assertThat(history.history().drainRate().completedPerSecond()).isEqualTo(250 / 30.0);
    }

    @Test
    void anInstanceMissingFromSomeSamplesAddsWhatItGrewInTheSamplesThatHaveIt() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        cluster.register("node-a", "host-a", 8080);
        cluster.register("node-b", "host-b", 8080);
        for (int tick = 0; tick <= 6; tick++) {
            beat("node-b", tick * 10L);
            if (tick <= 2) {
                beat("node-a", 500 + tick * 100L);
            } else if (tick == 3) {
                cluster.remove("node-a"); // departed: 200 grown while it was live
            } else if (tick == 5) {
                cluster.register("node-c", "host-c", 8080); // joined: it publishes a count from its first heartbeat
            }
            if (tick == 6) {
                beat("node-c", 40);
            }
            history.record(clusterMonitor.refresh());
            clock.advance(Duration.ofSeconds(10));
        }
        // node-a 200, node-b 60, node-c nothing yet (one sample with a count): 260 over 60 s
        assertThat(history.history().drainRate().completedPerSecond()).isEqualTo(260 / 60.0);
    }

    @Test
    void theDrainRateIsUnknownWhenNoInstancePublishesACount() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, () -> 7);
        cluster.register("node-a", "host-a", 8080);
        for (int tick = 0; tick < 3; tick++) {
            cluster.heartbeat("node-a"); // a version that publishes no count
            history.record(clusterMonitor.refresh());
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(history.history().drainRate().completedPerSecond()).isNull();
        assertThat(history.history().drainRate().unknownBecause()).contains("no instance published a count");

        ConsoleHistory noProcessor = new ConsoleHistory(clock, 100, null);
        for (int tick = 0; tick < 3; tick++) {
            noProcessor.record(monitor.refresh()); // outside a cluster, and this node processes nothing
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(noProcessor.history().drainRate().completedPerSecond()).isNull();
        assertThat(noProcessor.history().drainRate().unknownBecause()).contains("no instance published a count");
    }

    @Test
    void outsideAClusterTheDrainRateIsTheLocalProcessorsCountsGrowth() {
        AtomicLong completed = new AtomicLong(40);
        ConsoleHistory history = new ConsoleHistory(clock, 100, completed::get);
        for (int tick = 0; tick <= 3; tick++) {
            completed.addAndGet(tick == 0 ? 0 : 20);
            history.record(monitor.refresh());
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(history.history().drainRate().completedPerSecond()).isEqualTo(2.0);
    }

    @Test
    void anInstanceSeenLiveAndThenGoneIsDepartedUntilItComesBack() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, null);
        cluster.register("node-a", "host-a", 8080, new InstanceCapabilities(Set.of(), Set.of(), true, "1.4.2"));
        cluster.register("node-b", "host-b", 8081);
        stores.partitions(state(0, "node-a", 1), state(1, "node-b", 1), state(2, "node-z", 1));
        history.record(clusterMonitor.refresh());
        Instant lastHeartbeat = cluster.findLive(Duration.ofHours(1)).get(0).lastHeartbeat();
        assertThat(departed(history)).as("node-z owns a partition and is not live: never seen")
                .containsExactly(new DepartedInstance("node-z", 1, null, null, null, null, null));

        clock.advance(Duration.ofSeconds(10));
        cluster.remove("node-a"); // killed, and its row removed by the takeover in the same pass
        stores.partitions(state(0, "node-b", 2), state(1, "node-b", 1), state(2, "node-z", 1));
        history.record(clusterMonitor.refresh());
        assertThat(departed(history)).containsExactly(
                new DepartedInstance("node-a", 0, "host-a", 8080, "1.4.2", lastHeartbeat, START),
                new DepartedInstance("node-z", 1, null, null, null, null, null));

        clock.advance(Duration.ofSeconds(10));
        cluster.register("node-a", "host-a", 8080);
        history.record(clusterMonitor.refresh());
        assertThat(departed(history)).as("back").extracting(DepartedInstance::id).containsExactly("node-z");

        clock.advance(Duration.ofSeconds(10));
        cluster.remove("node-b");
        stores.partitions(state(0, "node-b", 2), state(1, "node-b", 1), state(2, null, 2));
        history.record(clusterMonitor.refresh());
        assertThat(departed(history)).as("one row per id: seen, and still owner in the partition table")
                .containsExactly(new DepartedInstance("node-b", 2, "host-b", 8081, null, START,
                        START.plusSeconds(20)));

        clock.set(START.plus(Duration.ofHours(1)).plusSeconds(21));
        cluster.heartbeat("node-a");
        stores.partitions(state(0, "node-a", 3), state(1, "node-a", 3), state(2, null, 2));
        assertThat(departed(history)).as("seen more than an hour ago").isEmpty();
    }

    /** The overview's departed instances for the monitor's latest snapshot, as the page gets them. */
    private List<DepartedInstance> departed(ConsoleHistory history) {
        Overview overview = ConsoleViews.overview(null, List.of(), clusterMonitor.latest(Duration.ofSeconds(5)),
                Duration.ofSeconds(10), new OperationsState(true, null, null), history.seenInstances());
        return overview.departed();
    }

    private void beat(String instanceId, long recordsCompleted) {
        assertThat(cluster.heartbeat(instanceId, recordsCompleted)).as("%s is registered", instanceId).isTrue();
    }

    private static PartitionState state(int partition, @Nullable String owner, long epoch) {
        return new PartitionState(partition, owner, epoch);
    }

    /** Record counts and a partition table, as set by the test. */
    private static final class FakeStores implements RecordStatistics, PartitionStore {
        private Map<OutboxRecordStatus, Long> counts = Map.of();
        private List<PartitionBacklog> backlog = List.of();
        private List<PartitionState> partitions = List.of();

        void counts(long pending, long failed, long completed) {
            counts = Map.of(OutboxRecordStatus.NEW, pending, OutboxRecordStatus.FAILED, failed,
                    OutboxRecordStatus.COMPLETED, completed);
        }

        void partitions(PartitionState... states) {
            partitions = new ArrayList<>(List.of(states));
        }

        @Override
        public Map<OutboxRecordStatus, Long> countByStatus() {
            return counts;
        }

        @Override
        public List<PartitionBacklog> pendingByPartitionAndHandler() {
            return backlog;
        }

        @Override
        public List<PartitionState> findAll() {
            return partitions;
        }

        @Override
        public boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout) {
            throw new UnsupportedOperationException("the history only reads");
        }

        @Override
        public boolean release(int partition, long epoch, String instanceId) {
            throw new UnsupportedOperationException("the history only reads");
        }
    }
}
