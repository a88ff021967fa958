package dev.outbox.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.console.ConsoleHistory.History;
import dev.outbox.console.ConsoleHistory.Sample;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The history's samples, retention, cap, claims and drain rate, over snapshots of fake stores on a moved clock. */
class ConsoleHistoryTest {

    private static final Instant START = Instant.parse("2026-01-01T10:00:00Z");

    private final MutableClock clock = new MutableClock(START);
    private final FakeStores stores = new FakeStores();
    private final OutboxMonitor monitor = OutboxMonitor.builder().statistics(stores).countCompletedRecords(true)
            .partitions(stores).clock(clock).build();

    @Test
    void keepsOneSamplePerDistinctSnapshotWithItsCounts() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, false);
        stores.counts(5, 2, 10);
        OutboxSnapshot first = monitor.refresh();
        history.record(first);
        history.record(first);
        clock.advance(Duration.ofSeconds(10));
        stores.counts(3, 2, 12);
        OutboxSnapshot second = monitor.refresh();
        history.record(second);
        history.record(first);

        assertThat(history.history().samples()).containsExactly(new Sample(START, 5, 2, 10, 0),
                new Sample(START.plusSeconds(10), 3, 2, 12, 0));
    }

    @Test
    void countsDeferredRecords() {
        OutboxMonitor local = OutboxMonitor.builder().statistics(stores).countCompletedRecords(true).clock(clock)
                .capabilities(new InstanceCapabilities(Set.of("billing"), Set.of(), false, null)).build();
        stores.backlog = List.of(new PartitionBacklog(3, "shipping", 4, START), new PartitionBacklog(4, "billing", 2,
                START));
        ConsoleHistory history = new ConsoleHistory(clock, 100, false);
        history.record(local.refresh());

        assertThat(history.history().samples()).extracting(Sample::deferred).containsExactly(4L);
    }

    @Test
    void dropsSamplesOlderThanAnHourAndBeyondTheCap() {
        ConsoleHistory history = new ConsoleHistory(clock, 3, false);
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
        ConsoleHistory history = new ConsoleHistory(clock, 100, false);
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
    void theDrainRateIsTheCompletedCountsIncreaseOverTheLastMinute() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, false);
        stores.counts(100, 0, 0);
        history.record(monitor.refresh());
        assertThat(history.history().drainRate().completedPerSecond()).as("one sample").isNull();
        assertThat(history.history().drainRate().unknownBecause()).contains("fewer than two samples");

        clock.advance(Duration.ofSeconds(10));
        stores.counts(80, 0, 20);
        history.record(monitor.refresh());
        assertThat(history.history().drainRate().completedPerSecond()).as("a shorter history").isEqualTo(2.0);

        // 600 completed at first, then 5 a second over the last minute
        for (int tick = 1; tick <= 12; tick++) {
            clock.advance(Duration.ofSeconds(10));
            stores.counts(0, 0, tick <= 6 ? 20 + tick * 100 : 620 + (tick - 6) * 50);
            history.record(monitor.refresh());
        }
        History now = history.history();
        assertThat(now.drainRate().completedPerSecond()).isEqualTo(5.0);
        assertThat(now.drainRate().overSeconds()).isEqualTo(60.0);
        assertThat(now.drainRate().unknownBecause()).isNull();
    }

    @Test
    void theDrainRateIsUnknownWhenTheCompletedCountFallsOrCompletedRecordsAreDeleted() {
        ConsoleHistory history = new ConsoleHistory(clock, 100, false);
        ConsoleHistory deleting = new ConsoleHistory(clock, 100, true);
        for (long completed : new long[] {100, 200, 50, 150}) {
            stores.counts(0, 0, completed);
            OutboxSnapshot snapshot = monitor.refresh();
            history.record(snapshot);
            deleting.record(snapshot);
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(history.history().drainRate().completedPerSecond()).isNull();
        assertThat(history.history().drainRate().unknownBecause()).contains("fell");
        assertThat(deleting.history().drainRate().completedPerSecond()).isNull();
        assertThat(deleting.history().drainRate().unknownBecause()).contains("delete-completed-records");

        for (int tick = 0; tick < 7; tick++) {
            stores.counts(0, 0, 150 + tick * 10);
            history.record(monitor.refresh());
            clock.advance(Duration.ofSeconds(10));
        }
        assertThat(history.history().drainRate().completedPerSecond()).as("the fall is out of the window")
                .isEqualTo(1.0);
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
