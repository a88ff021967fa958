package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.Fence;
import dev.outbox.spi.Delivery;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.MutableClock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** Where per-lane order is kept in memory: a lane in hand is never taken twice; the fetch/release race guard. */
class LaneTableTest {

    private final AtomicInteger releases = new AtomicInteger();
    private final LaneTable lanes = new LaneTable(releases::incrementAndGet);
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final MutableClock clock = MutableClock.startingNow();

    @AfterEach
    void stopPool() {
        pool.shutdownNow();
    }

    private OutboxRecord record(String aggregateId) {
        return OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}").build(clock);
    }

    private LaneTable.Claim fetch(OutboxRecord... records) {
        Map<Lane, List<OutboxRecord>> byLane = new LinkedHashMap<>();
        for (OutboxRecord record : records) {
            byLane.computeIfAbsent(Lane.of(record), lane -> new java.util.ArrayList<>()).add(record);
        }
        lanes.beginFetch();
        return lanes.claim(byLane, (lane, fetched) -> new LaneWork(lane, fetched.stream()
                .map(record -> Delivery.of(record, Fence.unfenced(record.getPartition()))).toList(), pool,
                work -> { }));
    }

    @Test
    void aLaneInHandIsNotTakenAgainUntilReleased() {
        OutboxRecord a1 = record("A");
        LaneWork first = fetch(a1).taken().get(0);

        LaneTable.Claim again = fetch(record("A"), record("B"));

        assertThat(again.taken()).extracting(work -> work.lane.aggregateId()).containsExactly("B");
        assertThat(again.skipped()).isEqualTo(1);
        lanes.release(first);
        assertThat(fetch(record("A")).taken()).hasSize(1);
    }

    @Test
    void aLaneReleasedWhileTheRowsWereReadIsSkippedButOneReleasedBeforeIsTaken() {
        LaneWork a = fetch(record("A")).taken().get(0);
        LaneWork b = fetch(record("B")).taken().get(0);
        lanes.release(b); // before the next fetch began: its rows are read afresh

        lanes.beginFetch();
        lanes.release(a); // while the next fetch reads: the rows it read may predate a's stored outcomes
        Map<Lane, List<OutboxRecord>> read = new LinkedHashMap<>();
        read.put(new Lane("A", null), List.of(record("A")));
        read.put(new Lane("B", null), List.of(record("B")));
        LaneTable.Claim claim = lanes.claim(read, (lane, records) -> new LaneWork(lane, records.stream()
                .map(Delivery::unfenced).toList(), pool, work -> { }));

        assertThat(claim.taken()).extracting(work -> work.lane.aggregateId()).containsExactly("B");
        assertThat(claim.skipped()).isEqualTo(1);
    }

    @Test
    void endingAFetchStopsWatchingReleases() {
        LaneWork a = fetch(record("A")).taken().get(0);
        lanes.beginFetch();
        lanes.endFetch();
        lanes.release(a);

        assertThat(fetch(record("A")).taken()).as("released after the aborted fetch, so not guarded").hasSize(1);
    }

    @Test
    void recordsAndPartitionsInHandAreCountedUntilTheReleaseWhichHappensOnce() {
        String inPartition7 = AggregateIds.inPartition(7, "agg");
        OutboxRecord first = record(inPartition7);
        OutboxRecord second = record(inPartition7);
        LaneWork work = fetch(first, second).taken().get(0);
        work.calls = 2;

        assertThat(lanes.recordsInHand()).isEqualTo(2);
        assertThat(lanes.isHandling(7)).isTrue();
        assertThat(lanes.isHandling(8)).isFalse();

        lanes.release(work);
        lanes.release(work);

        assertThat(lanes.recordsInHand()).isZero();
        assertThat(lanes.isHandling(7)).isFalse();
        assertThat(work.handled).isCompletedWithValue(2);
        assertThat(releases).as("the release callback, once").hasValue(1);
    }
}
