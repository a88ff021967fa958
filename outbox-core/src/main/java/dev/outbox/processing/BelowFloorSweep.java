package dev.outbox.processing;

import dev.outbox.spi.FetchedRows;
import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * The read of the records below the fetch floor, one stretch of sequences per fetch ({@link FetchFloor}). Below the
 * floor lie the entries of every record finished since a long transaction began: one read of them all kept the poll
 * loop from the newest records for as long as it took (267 ms every 5 s in a steady flow of 2,000 records a second
 * under a snapshot held for minutes). In stretches, each fetch adds about {@link #PIECE_BUDGET} to the poll loop, and
 * the stretches still cover everything below the floor of the sweep's start, in order: a record committed below a
 * stretch already read waits for the next sweep, as it waited for the next read from the start.
 *
 * <p>The first stretch starts at the first record; the next ones each start where the one before ended (or after the
 * last row it returned, when it returned as many as it was allowed). Its length in sequences follows what the last
 * stretch took: doubled when it took under half the budget, halved when over twice.
 *
 * <p>Not thread-safe: used under the dispatcher's fetch lock. Times are {@link System#nanoTime()} readings.
 */
final class BelowFloorSweep {

    /** What one stretch may add to a fetch. */
    static final Duration PIECE_BUDGET = Duration.ofMillis(5);
    static final long FIRST_PIECE_SEQUENCES = 10_000;
    static final long MIN_PIECE_SEQUENCES = 1_000;
    static final long MAX_PIECE_SEQUENCES = 1L << 30;

    /** One stretch: from {@code fromSequence} (null: the first record) to before {@code toSequence}. */
    record Piece(@Nullable Long fromSequence, long toSequence) {
    }

    private boolean running;
    /** Where the next stretch starts; null: at the first record. */
    private @Nullable Long next;
    /** The floor when the sweep began: it ends there. */
    private long end;
    private long startNanos;
    private long spentNanos;
    private int pieces;
    private long pieceSequences = FIRST_PIECE_SEQUENCES;
    /** The lowest sequence the last read below the floor found: the first stretch ends a stretch above it. */
    private @Nullable Long lowestFound;
    private @Nullable Long lowestThisSweep;

    /** Starts a sweep of everything below {@code floor}. */
    void begin(long floor, long nowNanos) {
        running = true;
        next = null;
        end = floor;
        startNanos = nowNanos;
        spentNanos = 0;
        pieces = 0;
        lowestThisSweep = null;
    }

    boolean running() {
        return running;
    }

    /** Stops a sweep: a read from the start replaces it. */
    void cancel() {
        running = false;
    }

    /** A read from the start found {@code lowest} first (null: nothing, or no sequence to tell). */
    void readFromTheStart(@Nullable Long lowest) {
        if (lowest != null) {
            lowestFound = lowest;
        }
    }

    long startNanos() {
        return startNanos;
    }

    /** What the stretches of this sweep have taken so far. */
    long spentNanos() {
        return spentNanos;
    }

    /** The stretches of this sweep read so far. */
    int pieces() {
        return pieces;
    }

    /** Where this sweep ends: the floor when it began. */
    long end() {
        return end;
    }

    /** The next stretch of a running sweep; null when none runs. */
    @Nullable Piece nextPiece() {
        if (!running) {
            return null;
        }
        Long from = next;
        long base = from != null ? from : lowestFound != null ? lowestFound : end;
        long to = base >= end - pieceSequences ? end : base + pieceSequences;
        return new Piece(from, to);
    }

    /**
     * What the stretch read, limited to {@code limit} rows, from {@code startNanos} to {@code endNanos}.
     *
     * @return whether the sweep ended with it
     */
    boolean fetched(Piece piece, long startNanos, long endNanos, FetchedRows rows, int limit) {
        long took = endNanos - startNanos;
        spentNanos += took;
        pieces++;
        if (took < PIECE_BUDGET.toNanos() / 2) {
            pieceSequences = Math.min(MAX_PIECE_SEQUENCES, pieceSequences * 2);
        } else if (took > PIECE_BUDGET.toNanos() * 2) {
            pieceSequences = Math.max(MIN_PIECE_SEQUENCES, pieceSequences / 2);
        }
        long next = piece.toSequence();
        Long highest = FetchedSequences.highest(rows);
        if (rows.size() >= limit && highest != null && highest + 1 < next) {
            next = highest + 1; // more may be due in this stretch: go on after the last row read
        }
        Long lowest = FetchedSequences.lowest(rows);
        if (lowest != null && (lowestThisSweep == null || lowest < lowestThisSweep)) {
            lowestThisSweep = lowest;
        }
        if (next >= end) {
            running = false;
            if (lowestThisSweep != null) {
                lowestFound = lowestThisSweep;
            }
            return true;
        }
        this.next = next;
        return false;
    }
}
