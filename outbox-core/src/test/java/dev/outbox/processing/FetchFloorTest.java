package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.processing.BelowFloorSweep.Piece;
import dev.outbox.spi.FetchedRows;
import java.time.Instant;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class FetchFloorTest {

    private static final long MS = 1_000_000L;
    private static final long SLOW = FetchFloor.SLOW_FETCH.toNanos();
    private static final long LAG = FetchFloor.LAG.toNanos();
    private static final long FULL_INTERVAL = FetchFloor.FULL_FETCH_INTERVAL.toNanos();
    private static final long READ_INTERVAL = FetchFloor.ASSIGNED_READ_INTERVAL.toNanos();
    private static final long BUDGET = BelowFloorSweep.PIECE_BUDGET.toNanos();
    private static final int LIMIT = 150;
    private static final OwnedPartitions OWNED = OwnedPartitions.of(1, 2, 3);

    private final FetchFloor floor = new FetchFloor();

    @Test
    void whileFetchesFromTheStartAreFastEveryFetchStartsThere() {
        long now = 0;
        for (int fetch = 0; fetch < 20; fetch++) {
            assertThat(floor.floor(OWNED, now)).isNull();
            floor.fetched(OWNED, null, now, now + SLOW - 1, rows(100L + fetch));
            now += LAG;
        }
        assertThat(floor.floor(OWNED, now)).isNull();
    }

    @Test
    void afterASlowFetchLaterFetchesStartAtTheLowestSequenceFoundAtLeastALagAgo() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L, 150L));

        assertThat(floor.floor(OWNED, SLOW + LAG - 1)).as("not yet a lag old").isNull();
        assertThat(floor.floor(OWNED, SLOW + LAG)).isEqualTo(100L);

        long t = SLOW + LAG;
        floor.fetched(OWNED, 100L, t, t + MS, rows(180L, 190L));
        assertThat(floor.floor(OWNED, t + MS + LAG - 1)).as("the newer mark is not a lag old").isEqualTo(100L);
        assertThat(floor.floor(OWNED, t + MS + LAG)).isEqualTo(180L);
    }

    @Test
    void aFetchThatFindsNothingLeavesTheFloorWhereItWas() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.fetched(OWNED, 100L, LAG + SLOW, LAG + SLOW + MS, rows());

        assertThat(floor.floor(OWNED, 3 * LAG)).isEqualTo(100L);
    }

    @Test
    void aSweepBelowTheFloorStartsEveryFullFetchIntervalAndReadsItInStretchesUpToTheFloor() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L)); // the floor goes on; stretches begin near 100
        floor.fetched(OWNED, 100L, LAG, LAG + MS, rows(50_000L));
        long t = FULL_INTERVAL;
        assertThat(floor.floor(OWNED, t)).as("no fetch from the start any more").isEqualTo(50_000L);
        assertThat(floor.sweepPiece(50_000L, t - 1)).as("not yet").isNull();

        Piece first = floor.sweepPiece(50_000L, t);
        assertThat(first).isEqualTo(new Piece(null, 100L + BelowFloorSweep.FIRST_PIECE_SEQUENCES));
        floor.swept(first, t, t + MS, rows(40L), LIMIT); // fast: the next stretch is twice as long
        assertThat(floor.sweeping()).isTrue();
        Piece second = floor.sweepPiece(50_000L, t + MS);
        assertThat(second).isEqualTo(new Piece(first.toSequence(), first.toSequence() + 20_000L));
        floor.swept(second, t + MS, t + 2 * MS, rows(), LIMIT);
        Piece last = floor.sweepPiece(50_000L, t + 2 * MS);
        assertThat(last).as("ends at the floor of the sweep's start")
                .isEqualTo(new Piece(second.toSequence(), 50_000L));
        floor.swept(last, t + 2 * MS, t + 3 * MS, rows(), LIMIT);

        assertThat(floor.sweeping()).isFalse();
        assertThat(floor.sweepPiece(50_000L, t + FULL_INTERVAL - 1)).as("the next one a full interval later").isNull();
        assertThat(floor.sweepPiece(50_000L, t + FULL_INTERVAL))
                .as("from the lowest the last sweep found, 40, its stretches grown to 80,000: to the floor at once")
                .isEqualTo(new Piece(null, 50_000L));
    }

    @Test
    void aStretchThatReadsItsLimitGoesOnAfterItsLastRowAndASlowOneHalvesTheNext() {
        Piece first = sweepingBelow(50_000L);
        floor.swept(first, 0, 3 * BUDGET, rows(200L, 300L), 2); // slow, and full: more may be due before its end

        assertThat(floor.sweepPiece(50_000L, 3 * BUDGET))
                .isEqualTo(new Piece(301L, 301L + BelowFloorSweep.FIRST_PIECE_SEQUENCES / 2));
    }

    @Test
    void aSweepFastForAFullFetchIntervalTurnsTheFloorOffAndASlowOneLeavesItOn() {
        Piece slowSweep = sweepingBelow(50_000L); // started at FULL_INTERVAL, the slow fetch at 0
        floor.swept(new Piece(null, 50_000L), FULL_INTERVAL, FULL_INTERVAL + SLOW, rows(), LIMIT);
        assertThat(slowSweep.toSequence()).isLessThan(50_000L);
        assertThat(floor.floor(OWNED, FULL_INTERVAL + SLOW)).as("a slow sweep leaves it on").isNotNull();

        long t = 2 * FULL_INTERVAL;
        Piece fast = floor.sweepPiece(50_000L, t);
        floor.swept(new Piece(fast.fromSequence(), 50_000L), t, t + SLOW - 1, rows(), LIMIT);
        assertThat(floor.floor(OWNED, t + SLOW)).as("fast, a full interval after the slow one").isNull();
        assertThat(floor.readsHighestAssigned(t + SLOW)).isFalse();
    }

    @Test
    void aFetchFromTheStartEndsTheSweep() {
        sweepingBelow(50_000L);
        OwnedPartitions more = OwnedPartitions.of(1, 2, 3, 4);
        assertThat(floor.floor(more, FULL_INTERVAL)).as("a partition taken over").isNull();

        floor.fetched(more, null, FULL_INTERVAL, FULL_INTERVAL + SLOW, rows(20L));
        assertThat(floor.sweeping()).isFalse();
        assertThat(floor.sweepPiece(null, FULL_INTERVAL + SLOW)).as("after a fetch from the start").isNull();
    }

    /** The floor on at 0, a floored fetch finding {@code found}, a sweep begun at FULL_INTERVAL: its first piece. */
    private Piece sweepingBelow(long found) {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.fetched(OWNED, 100L, LAG, LAG + MS, rows(found));
        Piece first = floor.sweepPiece(floor.floor(OWNED, FULL_INTERVAL), FULL_INTERVAL);
        assertThat(first).isNotNull();
        return first;
    }

    @Test
    void fetchesFromTheStartFastForAFullFetchIntervalTurnTheFloorOff() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.fetched(OWNED, null, FULL_INTERVAL, FULL_INTERVAL + SLOW - 1, rows(300L));

        assertThat(floor.floor(OWNED, FULL_INTERVAL + 2 * LAG)).isNull();
    }

    @Test
    void oneFastFetchFromTheStartAmongSlowOnesLeavesTheFloorOn() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        assertThat(floor.floor(OWNED, LAG / 2)).as("no mark a lag old yet").isNull();
        floor.fetched(OWNED, null, LAG / 2, LAG / 2 + MS, rows(120L)); // fast, e.g. its pages were cached

        assertThat(floor.floor(OWNED, SLOW + LAG)).isEqualTo(100L);
        assertThat(floor.floor(OWNED, LAG / 2 + MS + LAG)).isEqualTo(120L);
    }

    @Test
    void otherPartitionsStartFromTheStartAndForgetTheOldMarks() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        OwnedPartitions more = OwnedPartitions.of(1, 2, 3, 4);

        assertThat(floor.floor(more, 2 * LAG)).as("a partition taken over may hold older records").isNull();

        floor.fetched(more, null, 2 * LAG, 2 * LAG + SLOW, rows(20L));
        assertThat(floor.floor(more, 3 * LAG + SLOW)).isEqualTo(20L);
        assertThat(floor.floor(OWNED, 3 * LAG + SLOW)).isNull();
    }

    @Test
    void rowsWithoutASequenceSetNoMark() {
        floor.fetched(OWNED, null, 0, SLOW, new FetchedRows(List.of(record(null)), List.of()));

        assertThat(floor.floor(OWNED, 2 * LAG)).isNull();
    }

    // ---------------------------------------------------------------- with the highest sequence handed out

    @Test
    void theHighestAssignedIsReadOnlyWhileTheFloorIsOnAndAtMostEveryReadInterval() {
        assertThat(floor.readsHighestAssigned(0)).as("fetches from the start are fast").isFalse();

        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        assertThat(floor.readsHighestAssigned(SLOW)).isTrue();
        floor.highestAssigned(1_000L, SLOW + MS);
        assertThat(floor.readsHighestAssigned(SLOW + MS + READ_INTERVAL - 1)).isFalse();
        assertThat(floor.readsHighestAssigned(SLOW + MS + READ_INTERVAL)).isTrue();
    }

    @Test
    void inABacklogTheFloorFollowsTheLastFetchInsteadOfStayingALagBehind() {
        long t = floorOnThenAFetchALagLaterFinding100(10_000L); // the backlog, written before; nothing since

        assertThat(floor.floor(OWNED, t)).as("at once, not a lag later").isEqualTo(100L);
        floor.fetched(OWNED, 100L, t, t + MS, rows(180L, 190L));
        assertThat(floor.floor(OWNED, t + MS)).isEqualTo(180L);
    }

    @Test
    void aSequenceHandedOutSinceTheReadingStaysAboveTheFloor() {
        long t = floorOnThenAFetchALagLaterFinding100(150L);
        floor.fetched(OWNED, 100L, t, t + MS, rows(300L, 310L)); // 151..299: maybe not committed yet

        assertThat(floor.floor(OWNED, t + MS)).isEqualTo(151L);
    }

    @Test
    void aFetchThatFindsNothingLetsTheFloorRiseToTheHighestAssignedALagBeforeIt() {
        long t = floorOnThenAFetchALagLaterFinding100(500L);
        floor.fetched(OWNED, 100L, t, t + MS, rows());

        assertThat(floor.floor(OWNED, t + MS)).isEqualTo(501L);
    }

    /**
     * A slow fetch from the start at 0 (the floor goes on), {@code highestAssigned} read as it ends, and a fetch from
     * the start a lag later finding sequence 100 and more; returns when that fetch ended.
     */
    private long floorOnThenAFetchALagLaterFinding100(long highestAssigned) {
        floor.fetched(OWNED, null, 0, SLOW, rows(1L));
        floor.highestAssigned(highestAssigned, SLOW);
        long t = SLOW + LAG;
        floor.fetched(OWNED, null, t, t + SLOW, rows(100L, 150L));
        return t + SLOW;
    }

    @Test
    void aReadingLessThanALagBeforeTheLastFetchIsNotUsed() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.highestAssigned(10_000L, SLOW);
        floor.fetched(OWNED, null, SLOW + LAG - 1, SLOW + LAG - 1 + SLOW, rows(200L));

        assertThat(floor.floor(OWNED, SLOW + LAG)).as("the mark a lag old, as without a reading").isEqualTo(100L);
    }

    @Test
    void theFloorIsNeverBelowTheMarkALagOld() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.highestAssigned(50L, SLOW); // below the mark: of two floors, each safe, the higher counts
        floor.fetched(OWNED, null, SLOW + LAG, 2 * SLOW + LAG, rows(120L));

        assertThat(floor.floor(OWNED, 2 * SLOW + LAG)).isEqualTo(100L);
    }

    @Test
    void aFetchWithRowsWithoutASequenceLeavesTheFloorALagBehind() {
        floor.fetched(OWNED, null, 0, SLOW, rows(100L));
        floor.highestAssigned(10_000L, SLOW);
        floor.fetched(OWNED, null, SLOW + LAG, 2 * SLOW + LAG, new FetchedRows(List.of(record(null)), List.of()));

        assertThat(floor.floor(OWNED, 2 * SLOW + LAG)).isEqualTo(100L);
    }

    private static FetchedRows rows(Long... sequences) {
        return FetchedRows.of(Arrays.stream(sequences).map(FetchFloorTest::record).toList());
    }

    private static OutboxRecord record(Long sequence) {
        return OutboxRecord.restore().id("r-" + sequence).aggregateId("order-1").eventType("OrderPlaced")
                .payload("{}").createdAt(Instant.EPOCH).status(OutboxRecordStatus.NEW).sequence(sequence).build();
    }
}
