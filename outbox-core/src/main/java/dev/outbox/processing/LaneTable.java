package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.PartitionHasher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BiFunction;
import org.jspecify.annotations.Nullable;

/**
 * The lanes in hand: where per-lane order is enforced in memory. A lane (one aggregate's records for one handler) is in
 * hand from its dispatch until its outcomes are stored, and a lane in hand is never dispatched again, so its later
 * records are never handed out before its earlier ones are stored.
 *
 * <p><b>The fetch/release race guard.</b> A fetch reads rows and then dispatches them. A lane released while the rows
 * were read may have stored outcomes that the rows predate (a record completed meanwhile, still read as NEW), so a
 * fetch skips every lane released between {@link #beginFetch()} and {@link #claim}; a later fetch reads it afresh.
 * Fetches never overlap (the dispatcher sees to that), so one set of releases is watched at a time.
 */
final class LaneTable {

    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Lane, LaneWork> inHand = new HashMap<>();
    private @Nullable Set<Lane> releasedDuringFetch;
    private int recordsInHand;
    /** Records of the lanes in hand that wait for an acknowledgement; see {@link #waiting}. */
    private int recordsWaiting;
    /** Lanes in hand per partition; read without the lock by a coordinator handing partitions over. */
    private final AtomicIntegerArray lanesByPartition = new AtomicIntegerArray(PartitionHasher.PARTITION_COUNT);
    private final Runnable onRelease;

    /** @param onRelease told after every release, outside the table's lock */
    LaneTable(Runnable onRelease) {
        this.onRelease = onRelease;
    }

    /** Starts watching releases, before the rows of a fetch are read. End with {@link #claim} or {@link #endFetch}. */
    void beginFetch() {
        lock.lock();
        try {
            releasedDuringFetch = new HashSet<>();
        } finally {
            lock.unlock();
        }
    }

    /** Stops watching releases: the fetch dispatches nothing. */
    void endFetch() {
        lock.lock();
        try {
            releasedDuringFetch = null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * Takes into hand the fetched lanes that are neither in hand nor released since {@link #beginFetch()}, in fetch
     * order, and stops watching releases.
     *
     * @param newWork makes the work of a lane taken
     */
    Claim claim(Map<Lane, List<OutboxRecord>> fetched, BiFunction<Lane, List<OutboxRecord>, LaneWork> newWork) {
        List<LaneWork> taken = new ArrayList<>(fetched.size());
        int skipped = 0;
        boolean skippedReleased = false;
        lock.lock();
        try {
            Set<Lane> released = releasedDuringFetch == null ? Set.of() : releasedDuringFetch;
            releasedDuringFetch = null;
            for (Map.Entry<Lane, List<OutboxRecord>> lane : fetched.entrySet()) {
                boolean releasedMeanwhile = released.contains(lane.getKey());
                if (inHand.containsKey(lane.getKey()) || releasedMeanwhile) {
                    skipped += lane.getValue().size();
                    skippedReleased |= releasedMeanwhile;
                    continue;
                }
                LaneWork work = newWork.apply(lane.getKey(), lane.getValue());
                inHand.put(work.lane, work);
                recordsInHand += work.deliveries.size();
                // Counted before any handler runs: a coordinator that withdrew the partition and then sees no lane of
                // it in hand knows that no record of it will start, and that every outcome is stored.
                lanesByPartition.incrementAndGet(work.partition);
                taken.add(work);
            }
        } finally {
            lock.unlock();
        }
        return new Claim(taken, skipped, skippedReleased);
    }

    /** The lane's outcomes are stored, or given up: its later records may be fetched again. Idempotent. */
    void release(LaneWork work) {
        if (!work.released.compareAndSet(false, true)) {
            return;
        }
        lock.lock();
        try {
            remove(work);
        } finally {
            lock.unlock();
        }
        afterRemoval(work);
        onRelease.run();
    }

    /**
     * {@link #release} of many lanes at once, as a group commit stores them: the lock is taken once and
     * {@code onRelease} told once, so that the poll loop wakes once per group rather than once per lane.
     */
    void releaseAll(List<LaneWork> works) {
        List<LaneWork> releasing = new ArrayList<>(works.size());
        for (LaneWork work : works) {
            if (work.released.compareAndSet(false, true)) {
                releasing.add(work);
            }
        }
        if (releasing.isEmpty()) {
            return;
        }
        lock.lock();
        try {
            releasing.forEach(this::remove);
        } finally {
            lock.unlock();
        }
        releasing.forEach(this::afterRemoval);
        onRelease.run();
    }

    /** Under the lock: the lane leaves the table. */
    private void remove(LaneWork work) {
        inHand.remove(work.lane);
        if (releasedDuringFetch != null) {
            releasedDuringFetch.add(work.lane);
        }
        recordsInHand -= work.deliveries.size();
        if (work.waiting) {
            recordsWaiting -= work.deliveries.size();
        }
    }

    /** Outside the lock, before {@code onRelease}: the coordinator's count, then whoever waits for the lane. */
    private void afterRemoval(LaneWork work) {
        lanesByPartition.decrementAndGet(work.partition);
        work.handled.complete(work.calls);
    }

    /**
     * Marks a lane in hand as working again after {@link #waiting(Collection)}: its broker answered. Does nothing once
     * the lane is released, or if it was not waiting.
     */
    void answered(LaneWork work) {
        lock.lock();
        try {
            if (!work.released.get() && work.waiting) {
                work.waiting = false;
                recordsWaiting -= work.deliveries.size();
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * Marks lanes in hand as waiting for a broker's acknowledgement (they hold no worker meanwhile): the records of
     * waiting lanes do not count in {@link #recordsInWork()}, so that they do not keep the loop from fetching the
     * records of other lanes. A burst of sends takes the lock once and tells {@code onRelease} once, not once per
     * record. Released lanes, and lanes waiting already, are left as they are.
     */
    void waiting(Collection<LaneWork> works) {
        if (works.isEmpty()) {
            return;
        }
        boolean marked = false;
        lock.lock();
        try {
            for (LaneWork work : works) {
                if (!work.released.get() && !work.waiting) {
                    work.waiting = true;
                    recordsWaiting += work.deliveries.size();
                    marked = true;
                }
            }
        } finally {
            lock.unlock();
        }
        if (marked) {
            onRelease.run(); // as good as released for the loop's budget
        }
    }

    /** Records of the lanes in hand waiting for an acknowledgement; see {@link #waiting}. */
    int recordsWaiting() {
        lock.lock();
        try {
            return recordsWaiting;
        } finally {
            lock.unlock();
        }
    }

    /** Records of the lanes in hand that are not waiting for an acknowledgement: what the fetch budget counts. */
    int recordsInWork() {
        lock.lock();
        try {
            return recordsInHand - recordsWaiting;
        } finally {
            lock.unlock();
        }
    }

    /** Whether a lane of {@code partition} is in hand: some record of it may be running or have an outcome unstored. */
    boolean isHandling(int partition) {
        return lanesByPartition.get(partition) > 0;
    }

    /** Records of all lanes in hand, handled or not. */
    int recordsInHand() {
        lock.lock();
        try {
            return recordsInHand;
        } finally {
            lock.unlock();
        }
    }

    /**
     * What a claim took, and how many fetched records it left because their lane was in hand or released meanwhile.
     *
     * @param skippedReleased whether a lane was left because it was released meanwhile: it is free to be read again
     */
    record Claim(List<LaneWork> taken, int skipped, boolean skippedReleased) {
    }
}
