package dev.outbox.processing;

import dev.outbox.partition.OwnedPartitions;
import dev.outbox.processing.BelowFloorSweep.Piece;
import dev.outbox.spi.FetchedRows;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Iterator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where the due fetch may start in sequence order. A fetch reads the lowest due records first, walking the index of
 * {@code NEW} records from its start, and the index keeps the entries of records finished since the database last
 * cleaned it up. While a long transaction holds a snapshot open nothing cleans them, so every fetch walks all the
 * records finished meanwhile: the bloat that slows a queue on a database table down more and more.
 *
 * <p>So once a fetch from the start is slow ({@link #SLOW_FETCH}), the next fetches start at a floor (until reads
 * below it have been fast for {@link #FULL_FETCH_INTERVAL}): the lowest
 * sequence a fetch found at least {@link #LAG} ago. Nothing below it was due then. What can turn up below it since (a
 * record whose transaction took its sequence earlier and committed more than {@code LAG} later, a retry falling due,
 * an operator's retry) is read by a sweep below the floor ({@link BelowFloorSweep}), a stretch per fetch, which starts
 * at least every {@link #FULL_FETCH_INTERVAL}, or by a fetch from the start when the owned partitions change: such a
 * record waits up to a sweep longer, and none is left behind. While fetches from the start are fast there is no floor
 * at all.
 *
 * <p>A floor a second behind still walks a second's worth of handled records per fetch: a backlog drained at 20,000
 * records a second, 20,000 entries. When the store tells the highest sequence it has handed out
 * ({@link dev.outbox.spi.RecordStore#highestAssignedSequence()}), the floor goes higher: to the lowest sequence the
 * last fetch found, but not above the highest handed out {@code LAG} before that fetch started. A record below it that
 * the last fetch did not see took its sequence more than {@code LAG} before its commit became visible: the late
 * commit above, read the same way. Anything handed out since lies above the floor.
 *
 * <p>Not thread-safe: used under the dispatcher's fetch lock. Times are {@link System#nanoTime()} readings.
 */
final class FetchFloor {

    private static final Logger log = LoggerFactory.getLogger(FetchFloor.class);

    /** A fetch from the start taking this long turns the floor on. */
    static final Duration SLOW_FETCH = Duration.ofMillis(10);
    /** How old a fetch's lowest sequence must be before later fetches start there. */
    static final Duration LAG = Duration.ofSeconds(1);
    /** The longest time between fetches from the start while the floor is on. */
    static final Duration FULL_FETCH_INTERVAL = Duration.ofSeconds(5);

    /** How often the highest sequence handed out is read while the floor is on. */
    static final Duration ASSIGNED_READ_INTERVAL = LAG.dividedBy(4);

    /** The lowest sequence a fetch that ended at {@code atNanos} found. */
    private record Mark(long atNanos, long lowestSequence) {
    }

    /** The highest sequence handed out, as read by {@code atNanos}. */
    private record Assigned(long atNanos, long highestSequence) {
    }

    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    private final BelowFloorSweep sweep = new BelowFloorSweep();
    private final ArrayDeque<Assigned> assigned = new ArrayDeque<>();
    private boolean slow;
    /** When the last fetch started, and the lowest sequence it found (MAX_VALUE: none; null: a row could not tell). */
    private long lastFetchStartNanos;
    private @Nullable Long lastFetchLowest;
    /** When the last fetch from the start or sweep below the floor began. */
    private long lastFullFetchNanos;
    private long lastSlowFetchNanos;
    /** The partitions of the last fetch from the start; null before it. */
    private @Nullable OwnedPartitions partitions;

    /** The floor of a fetch starting at {@code nowNanos}, or null for a fetch from the start. */
    @Nullable Long floor(OwnedPartitions owned, long nowNanos) {
        if (!slow || !owned.equals(partitions)) {
            return null;
        }
        Long floor = null;
        for (Mark mark : marks) { // oldest first: the newest of those at least LAG old
            if (nowNanos - mark.atNanos() < LAG.toNanos()) {
                break;
            }
            floor = mark.lowestSequence();
        }
        Long byAssignment = floorByAssignment();
        return byAssignment == null || (floor != null && floor >= byAssignment) ? floor : byAssignment;
    }

    /**
     * The stretch below the floor to read after a fetch from {@code floor} (null: from the start, which needs none),
     * at {@code nowNanos}: a sweep starts {@link #FULL_FETCH_INTERVAL} after the last one began. Null when none runs.
     */
    @Nullable Piece sweepPiece(@Nullable Long floor, long nowNanos) {
        if (floor == null) {
            return null;
        }
        if (!sweep.running() && nowNanos - lastFullFetchNanos >= FULL_FETCH_INTERVAL.toNanos()) {
            sweep.begin(floor, nowNanos);
            lastFullFetchNanos = nowNanos;
        }
        return sweep.nextPiece();
    }

    /** Whether a sweep below the floor is under way: the poll loop then fetches again without waiting. */
    boolean sweeping() {
        return sweep.running();
    }

    /**
     * What the stretch {@code piece} read, up to {@code limit} rows, from {@code startNanos} to {@code endNanos}. A
     * sweep whose stretches took under {@link #SLOW_FETCH} in all, {@link #FULL_FETCH_INTERVAL} after the last slow
     * one, turns the floor off.
     */
    void swept(Piece piece, long startNanos, long endNanos, FetchedRows rows, int limit) {
        if (!sweep.fetched(piece, startNanos, endNanos, rows, limit)) {
            return;
        }
        log.debug("Outbox processor: read below the floor ({}) in {} stretch(es), {} µs in all, over {} ms",
                sweep.end(), sweep.pieces(), sweep.spentNanos() / 1_000, (endNanos - sweep.startNanos()) / 1_000_000);
        if (sweep.spentNanos() >= SLOW_FETCH.toNanos()) {
            lastSlowFetchNanos = sweep.startNanos();
        } else if (sweep.startNanos() - lastSlowFetchNanos >= FULL_FETCH_INTERVAL.toNanos()) {
            slow = false;
            marks.clear();
            assigned.clear();
            log.debug("Outbox processor: reads below the floor have been fast for {}; the floor is off",
                    FULL_FETCH_INTERVAL);
        }
    }

    /** Whether to read the highest sequence handed out before the fetch starting at {@code nowNanos}. */
    boolean readsHighestAssigned(long nowNanos) {
        return slow && (assigned.isEmpty()
                || nowNanos - assigned.getLast().atNanos() >= ASSIGNED_READ_INTERVAL.toNanos());
    }

    /** The highest sequence handed out, read by {@code readNanos}: a time taken after the read returned. */
    void highestAssigned(long highestSequence, long readNanos) {
        assigned.addLast(new Assigned(readNanos, highestSequence));
    }

    /** The lowest the last fetch found, capped by the highest handed out LAG before it started; null if unknown. */
    private @Nullable Long floorByAssignment() {
        long before = lastFetchStartNanos - LAG.toNanos();
        while (assigned.size() > 1 && second(assigned).atNanos() <= before) {
            assigned.removeFirst(); // only the newest reading at least LAG before the last fetch counts
        }
        Assigned reading = assigned.peekFirst();
        Long lowest = lastFetchLowest;
        if (lowest == null || reading == null || reading.atNanos() > before) {
            return null;
        }
        return Math.min(lowest, reading.highestSequence() + 1);
    }

    /**
     * What a fetch started at {@code startNanos} with {@code floor} (null: from the start) found, read by
     * {@code endNanos}.
     */
    void fetched(OwnedPartitions owned, @Nullable Long floor, long startNanos, long endNanos, FetchedRows rows) {
        Long lowest = FetchedSequences.lowest(rows);
        lastFetchStartNanos = startNanos;
        lastFetchLowest = rows.size() == 0 ? Long.valueOf(Long.MAX_VALUE) : lowest;
        if (floor == null) {
            sweep.cancel(); // this read covers what a sweep would
            sweep.readFromTheStart(lowest);
            if (!owned.equals(partitions)) {
                marks.clear(); // what was due below a mark of other partitions says nothing of these
                partitions = owned;
            }
            lastFullFetchNanos = startNanos;
            boolean wasSlow = slow;
            if (endNanos - startNanos >= SLOW_FETCH.toNanos()) {
                slow = true;
                lastSlowFetchNanos = startNanos;
            } else if (startNanos - lastSlowFetchNanos >= FULL_FETCH_INTERVAL.toNanos()) {
                slow = false; // fast for a while: not one fast fetch among slow ones, which would flap
            }
            if (slow && !wasSlow) {
                log.debug("Outbox processor: a fetch from the start took {} µs; later fetches start at a floor",
                        (endNanos - startNanos) / 1_000);
            } else if (!slow && wasSlow) {
                log.debug("Outbox processor: fetches from the start have been fast for {}; the floor is off",
                        FULL_FETCH_INTERVAL);
            }
            if (!slow) {
                marks.clear();
                assigned.clear();
                return;
            }
        }
        if (lowest == null) {
            return;
        }
        // dated by its end: what it saw may be as late as that, and a mark must be LAG old from what it saw
        marks.addLast(new Mark(endNanos, lowest));
        while (marks.size() > 1 && endNanos - second(marks).atNanos() >= LAG.toNanos()) {
            marks.removeFirst(); // only the newest mark at least LAG old can still become the floor
        }
    }

    private static <T> T second(ArrayDeque<T> oldestFirst) {
        Iterator<T> items = oldestFirst.iterator();
        items.next();
        return items.next();
    }
}
