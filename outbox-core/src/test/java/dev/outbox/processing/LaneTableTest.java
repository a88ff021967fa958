package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.processing.LaneTable.Claim;
import dev.outbox.spi.Delivery;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.MutableClock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The lanes in hand, driven by hand: claims, releases and the fetch/release race guard, on one thread. */
class LaneTableTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));
    // LaneWork only asks the pool whether it is shut down; nothing is ever submitted to it here.
    private final ExecutorService pool = Executors.newSingleThreadExecutor();
    private final AtomicInteger releases = new AtomicInteger();
    private final LaneTable table = new LaneTable(releases::incrementAndGet);
    /** Every work the table asked for, so tests can find the work of a lane. */
    private final List<LaneWork> made = new ArrayList<>();

    @AfterEach
    void shutDownPool() {
        pool.shutdownNow();
    }

    private List<OutboxRecord> records(String aggregateId, @Nullable String handlerId, int count) {
        List<OutboxRecord> records = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            OutboxRecord.Builder builder = OutboxRecord.builder().aggregateId(aggregateId).eventType("E")
                    .payload(aggregateId + ":" + i);
            if (handlerId != null) {
                builder.handlerId(handlerId);
            }
            records.add(builder.build(clock));
        }
        return records;
    }

    @SafeVarargs
    private static Map<Lane, List<OutboxRecord>> fetched(List<OutboxRecord>... lanes) {
        Map<Lane, List<OutboxRecord>> fetched = new LinkedHashMap<>();
        for (List<OutboxRecord> lane : lanes) {
            fetched.put(Lane.of(lane.get(0)), lane);
        }
        return fetched;
    }

    private LaneWork newWork(Lane lane, List<OutboxRecord> records) {
        List<Delivery> deliveries = records.stream().map(Delivery::unfenced).toList();
        LaneWork work = new LaneWork(lane, deliveries, pool, w -> { });
        made.add(work);
        return work;
    }

    /** One fetch as the dispatcher runs it: watch releases, read, claim. */
    private Claim fetch(Map<Lane, List<OutboxRecord>> fetched) {
        table.beginFetch();
        return table.claim(fetched, this::newWork);
    }

    private static List<Lane> lanesOf(Claim claim) {
        return claim.taken().stream().map(work -> work.lane).toList();
    }

    @Test
    void aClaimTakesEveryFetchedLaneInFetchOrder() {
        List<OutboxRecord> b = records("B", null, 2);
        List<OutboxRecord> a = records("A", null, 1);
        List<OutboxRecord> aForOtherHandler = records("A", "audit", 1);

        Claim claim = fetch(fetched(b, a, aForOtherHandler));

        assertThat(lanesOf(claim)).containsExactly(new Lane("B", null), new Lane("A", null), new Lane("A", "audit"));
        assertThat(claim.skipped()).isZero();
        assertThat(claim.taken().get(0).deliveries).extracting(Delivery::record).containsExactlyElementsOf(b);
        assertThat(table.recordsInHand()).isEqualTo(4);
    }

    @Test
    void aLaneInHandIsNotClaimedAgain() {
        List<OutboxRecord> a = records("A", null, 2);
        fetch(fetched(a));
        made.clear();

        Claim again = fetch(fetched(records("A", null, 3), records("B", null, 1)));

        assertThat(lanesOf(again)).containsExactly(new Lane("B", null));
        assertThat(again.skipped()).as("the records of the lane in hand").isEqualTo(3);
        assertThat(again.skippedReleased()).as("in hand, not released").isFalse();
        assertThat(made).as("no work is made for a skipped lane").extracting(work -> work.lane)
                .containsExactly(new Lane("B", null));
        assertThat(table.recordsInHand()).as("2 of A's first claim + 1 of B").isEqualTo(3);
    }

    @Test
    void aLaneReleasedBetweenBeginFetchAndClaimIsSkippedAndTakenByTheNextFetch() {
        List<OutboxRecord> a = records("A", null, 1);
        LaneWork first = fetch(fetched(a)).taken().get(0);

        table.beginFetch();
        // The fetch's rows were read before this release: they may predate the outcome just stored.
        table.release(first);
        Claim racing = table.claim(fetched(a), this::newWork);

        assertThat(racing.taken()).isEmpty();
        assertThat(racing.skipped()).isEqualTo(1);
        assertThat(racing.skippedReleased()).as("free to be read again at once").isTrue();
        assertThat(table.recordsInHand()).isZero();

        Claim next = fetch(fetched(a));
        assertThat(lanesOf(next)).as("read afresh by a later fetch").containsExactly(new Lane("A", null));
    }

    @Test
    void aLaneReleasedBeforeBeginFetchIsTaken() {
        List<OutboxRecord> a = records("A", null, 1);
        LaneWork first = fetch(fetched(a)).taken().get(0);
        table.release(first);

        Claim claim = fetch(fetched(a));

        assertThat(lanesOf(claim)).containsExactly(new Lane("A", null));
        assertThat(claim.skipped()).isZero();
    }

    @Test
    void endFetchStopsWatchingReleases() {
        List<OutboxRecord> a = records("A", null, 1);
        LaneWork first = fetch(fetched(a)).taken().get(0);

        table.beginFetch();
        table.endFetch(); // a fetch that dispatched nothing
        table.release(first);
        // A claim without beginFetch watches nothing; had endFetch not stopped the watch, A would be skipped.
        Claim claim = table.claim(fetched(a), this::newWork);

        assertThat(lanesOf(claim)).containsExactly(new Lane("A", null));
    }

    @Test
    void aLaneWaitingForASlowAcknowledgementStaysInHandButLeavesTheFetchBudget() { // issue 29
        LaneWork waiting = fetch(fetched(records("A", null, 3))).taken().get(0);
        fetch(fetched(records("B", null, 2)));

        table.waiting(List.of(waiting));

        assertThat(table.recordsInHand()).isEqualTo(5);
        assertThat(table.recordsInWork()).isEqualTo(2);
        assertThat(releases).as("the loop is told, as after a release").hasValue(1);
        table.answered(waiting);
        assertThat(table.recordsInWork()).isEqualTo(5);
        table.waiting(List.of(waiting));
        table.release(waiting);
        assertThat(table.recordsInHand()).isEqualTo(2);
        assertThat(table.recordsInWork()).isEqualTo(2);
        table.waiting(List.of(waiting)); // a late mark of a released lane
        assertThat(table.recordsInWork()).isEqualTo(2);
    }

    @Test
    void lanesSentInOneBurstAreMarkedWaitingInOneCallThatTellsTheLoopOnce() {
        Claim claim = fetch(fetched(records("A", null, 3), records("B", null, 2), records("C", null, 1),
                records("D", null, 4)));
        LaneWork a = claim.taken().get(0);
        LaneWork b = claim.taken().get(1);
        LaneWork c = claim.taken().get(2);
        LaneWork d = claim.taken().get(3);
        table.waiting(List.of(a));
        table.release(c);
        releases.set(0);

        table.waiting(List.of(a, b, c, d));

        assertThat(releases).as("one wake-up for the burst").hasValue(1);
        assertThat(table.recordsWaiting()).as("A once, B, D; C is released").isEqualTo(3 + 2 + 4);
        assertThat(table.recordsInWork()).isZero();
        assertThat(b.waiting).isTrue();
        assertThat(c.waiting).isFalse();

        table.answered(b);
        assertThat(table.recordsInWork()).isEqualTo(2);
        table.waiting(List.of(a, d, c));
        table.waiting(List.of());
        assertThat(releases).as("nothing newly waiting tells nobody").hasValue(1);
        table.release(d);
        assertThat(table.recordsWaiting()).isEqualTo(3);
        assertThat(table.recordsInWork()).isEqualTo(2);
    }

    @Test
    void aClaimStopsWatchingReleasesToo() {
        List<OutboxRecord> a = records("A", null, 1);
        LaneWork first = fetch(fetched(a)).taken().get(0);
        fetch(fetched(records("B", null, 1)));

        table.release(first); // after that fetch's claim
        Claim claim = table.claim(fetched(a), this::newWork);

        assertThat(lanesOf(claim)).containsExactly(new Lane("A", null));
    }

    @Test
    void recordsInHandAreCountedPerClaimAndDecrementedOnRelease() {
        Claim claim = fetch(fetched(records("A", null, 3), records("B", null, 2)));
        LaneWork a = claim.taken().get(0);
        LaneWork b = claim.taken().get(1);
        assertThat(table.recordsInHand()).isEqualTo(5);

        table.release(a);
        assertThat(table.recordsInHand()).isEqualTo(2);
        table.release(a);
        assertThat(table.recordsInHand()).as("a second release changes nothing").isEqualTo(2);
        table.release(b);
        assertThat(table.recordsInHand()).isZero();
    }

    @Test
    void isHandlingTellsPerPartitionWhetherALaneOfItIsInHand() {
        String a = AggregateIds.inPartition(7, "a");
        String b = AggregateIds.inPartition(7, "b");
        String c = AggregateIds.inPartition(9, "c");
        Claim claim = fetch(fetched(records(a, null, 1), records(b, null, 2), records(c, null, 1)));
        assertThat(claim.taken()).extracting(work -> work.partition).containsExactly(7, 7, 9);

        assertThat(table.isHandling(7)).isTrue();
        assertThat(table.isHandling(9)).isTrue();
        assertThat(table.isHandling(8)).isFalse();

        table.release(claim.taken().get(0));
        assertThat(table.isHandling(7)).as("b is still in hand").isTrue();
        table.release(claim.taken().get(1));
        table.release(claim.taken().get(1));
        assertThat(table.isHandling(7)).isFalse();
        assertThat(table.isHandling(9)).as("a double release of another lane must not touch 9").isTrue();
        table.release(claim.taken().get(2));
        assertThat(table.isHandling(9)).isFalse();
    }

    @Test
    void releaseCompletesHandledWithTheCallsAndTellsOnReleaseOncePerRelease() {
        Claim claim = fetch(fetched(records("A", null, 3), records("B", null, 1)));
        LaneWork a = claim.taken().get(0);
        LaneWork b = claim.taken().get(1);
        a.calls = 2;

        assertThat(a.handled).isNotDone();
        table.release(a);
        assertThat(a.handled).isCompletedWithValue(2);
        assertThat(a.released).isTrue();
        assertThat(releases).hasValue(1);

        table.release(a);
        assertThat(releases).as("an idempotent release tells nobody").hasValue(1);
        assertThat(b.handled).isNotDone();

        table.release(b);
        assertThat(b.handled).isCompletedWithValue(0);
        assertThat(releases).hasValue(2);
    }

    @Test
    void releaseAllReleasesAGroupAsReleaseDoesEachLaneAndTellsOnReleaseOnce() {
        String a = AggregateIds.inPartition(7, "a");
        String b = AggregateIds.inPartition(7, "b");
        Claim claim = fetch(fetched(records(a, null, 3), records(b, null, 1), records("C", null, 2)));
        LaneWork first = claim.taken().get(0);
        LaneWork second = claim.taken().get(1);
        LaneWork third = claim.taken().get(2);
        first.calls = 3;
        table.waiting(List.of(second));
        table.release(third);
        releases.set(0);
        table.beginFetch();

        table.releaseAll(List.of(first, second, third));

        assertThat(releases).as("one wake-up for the group; the lane released before is not told again").hasValue(1);
        assertThat(first.handled).isCompletedWithValue(3);
        assertThat(second.handled).isCompletedWithValue(0);
        assertThat(table.recordsInHand()).isZero();
        assertThat(table.recordsWaiting()).isZero();
        assertThat(table.isHandling(7)).isFalse();
        Claim next = table.claim(fetched(records(a, null, 1), records(b, null, 1)), this::newWork);
        assertThat(next.taken()).as("released while the fetch read its rows: the race guard skips them").isEmpty();
        assertThat(next.skippedReleased()).isTrue();

        table.releaseAll(List.of(first, second));
        assertThat(releases).as("releasing released lanes again tells nobody").hasValue(1);
    }

    @Test
    void onReleaseRunsAfterTheTableChangedAndOutsideItsLock() throws Exception {
        // The poll loop's waiter is told from onRelease and then reads the table from its own thread: the release
        // must be visible by then, and the table's lock free (or that thread would wait forever).
        ExecutorService reader = Executors.newSingleThreadExecutor();
        List<String> seen = new ArrayList<>();
        AtomicInteger calls = new AtomicInteger();
        LaneTable[] self = new LaneTable[1];
        LaneWork[] work = new LaneWork[1];
        self[0] = new LaneTable(() -> {
            calls.incrementAndGet();
            CompletableFuture<Integer> inHand = CompletableFuture.supplyAsync(self[0]::recordsInHand, reader);
            try {
                seen.add("recordsInHand=" + inHand.get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                seen.add("blocked: " + e);
            }
            seen.add("handling=" + self[0].isHandling(work[0].partition));
            seen.add("handled done=" + work[0].handled.isDone());
        });
        try {
            self[0].beginFetch();
            work[0] = self[0].claim(fetched(records("A", null, 2)), this::newWork).taken().get(0);

            self[0].release(work[0]);

            assertThat(calls).hasValue(1);
            assertThat(seen).containsExactly("recordsInHand=0", "handling=false", "handled done=true");
        } finally {
            reader.shutdownNow();
        }
    }
}
