package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.UnreadableRow;
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
 * <p>So once a fetch from the start is slow ({@link #SLOW_FETCH}), the next fetches start at a floor (until fetches
 * from the start have been fast for {@link #FULL_FETCH_INTERVAL}): the lowest
 * sequence a fetch found at least {@link #LAG} ago. Nothing below it was due then. What can turn up below it since (a
 * record whose transaction took its sequence earlier and committed more than {@code LAG} later, a retry falling due,
 * an operator's retry) is read by a fetch from the start, which runs at least every {@link #FULL_FETCH_INTERVAL} and
 * at once when the owned partitions change: such a record waits up to that much longer, and none is left behind.
 * While fetches from the start are fast there is no floor at all.
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

    /** The lowest sequence a fetch that ended at {@code atNanos} found. */
    private record Mark(long atNanos, long lowestSequence) {
    }

    private final ArrayDeque<Mark> marks = new ArrayDeque<>();
    private boolean slow;
    private long lastFullFetchNanos;
    private long lastSlowFetchNanos;
    /** The partitions of the last fetch from the start; null before it. */
    private @Nullable OwnedPartitions partitions;

    /** The floor of a fetch starting at {@code nowNanos}, or null for a fetch from the start. */
    @Nullable Long floor(OwnedPartitions owned, long nowNanos) {
        if (!slow || nowNanos - lastFullFetchNanos >= FULL_FETCH_INTERVAL.toNanos() || !owned.equals(partitions)) {
            return null;
        }
        Long floor = null;
        for (Mark mark : marks) { // oldest first: the newest of those at least LAG old
            if (nowNanos - mark.atNanos() < LAG.toNanos()) {
                break;
            }
            floor = mark.lowestSequence();
        }
        return floor;
    }

    /**
     * What a fetch started at {@code startNanos} with {@code floor} (null: from the start) found, read by
     * {@code endNanos}.
     */
    void fetched(OwnedPartitions owned, @Nullable Long floor, long startNanos, long endNanos, FetchedRows rows) {
        if (floor == null) {
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
                return;
            }
        }
        Long lowest = lowestSequence(rows);
        if (lowest == null) {
            return;
        }
        // dated by its end: what it saw may be as late as that, and a mark must be LAG old from what it saw
        marks.addLast(new Mark(endNanos, lowest));
        while (marks.size() > 1 && endNanos - second(marks).atNanos() >= LAG.toNanos()) {
            marks.removeFirst(); // only the newest mark at least LAG old can still become the floor
        }
    }

    private static Mark second(ArrayDeque<Mark> marks) {
        Iterator<Mark> oldestFirst = marks.iterator();
        oldestFirst.next();
        return oldestFirst.next();
    }

    /** The lowest sequence among the rows, or null when there are none or one has no sequence to tell. */
    private static @Nullable Long lowestSequence(FetchedRows rows) {
        long lowest = Long.MAX_VALUE;
        for (OutboxRecord record : rows.records()) {
            Long sequence = record.getSequence();
            if (sequence == null) {
                return null;
            }
            lowest = Math.min(lowest, sequence);
        }
        for (UnreadableRow row : rows.unreadable()) {
            Long sequence = row.sequence();
            if (sequence == null) {
                return null;
            }
            lowest = Math.min(lowest, sequence);
        }
        return lowest == Long.MAX_VALUE ? null : lowest;
    }
}
