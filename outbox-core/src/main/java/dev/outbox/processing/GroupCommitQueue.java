package dev.outbox.processing;

import dev.outbox.internal.DaemonThreads;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.ToIntFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Collects items from many threads and hands them, in arrival order, to one writer thread in groups: whatever arrived
 * while the previous group was being written, up to {@code maxWeight}. Under load a write carries many items; when
 * idle each item is written alone, at once. This is how a database commits many transactions with one flush.
 *
 * <p>A writer that finds items while {@code moreComing} says others are about to arrive (the rest of a dispatch, still
 * on the workers) lingers for them, up to {@code linger}: otherwise the first item of a burst is written alone, and
 * every burst costs two writes instead of one.
 */
final class GroupCommitQueue<T> {

    private static final Logger log = LoggerFactory.getLogger(GroupCommitQueue.class);

    private final Consumer<List<T>> writer;
    private final ToIntFunction<T> weight;
    private final int maxWeight;
    private final BooleanSupplier moreComing;
    private final long lingerNanos;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private final ArrayDeque<T> queue = new ArrayDeque<>();
    private final Thread thread;
    /** The weight of the items queued, under the lock. */
    private int queuedWeight;
    private boolean writing;
    private boolean closed;

    /**
     * @param writer called by the writer thread with each group; must not throw (what it throws is logged)
     * @param weight the size of an item, e.g. its number of records
     * @param maxWeight a group stops growing at this weight; an item heavier than this is a group of its own
     */
    GroupCommitQueue(String threadName, Consumer<List<T>> writer, ToIntFunction<T> weight, int maxWeight) {
        this(threadName, writer, weight, maxWeight, () -> false, Duration.ZERO);
    }

    /**
     * @param moreComing asked under the queue's lock (so it must not wait for a thread that adds items): whether items
     *     are about to be added; an {@link #add} or {@link #nudge} makes the writer ask again
     * @param linger how long the writer waits at most for them before it writes what it has
     */
    GroupCommitQueue(String threadName, Consumer<List<T>> writer, ToIntFunction<T> weight, int maxWeight,
            BooleanSupplier moreComing, Duration linger) {
        this.writer = writer;
        this.weight = weight;
        this.maxWeight = maxWeight;
        this.moreComing = moreComing;
        this.lingerNanos = linger.toNanos();
        this.thread = DaemonThreads.start(threadName, this::run);
    }

    /** Queues the item for the writer thread; after {@link #close()}, writes it in the calling thread instead. */
    void add(T item) {
        lock.lock();
        try {
            if (!closed) {
                queue.add(item);
                queuedWeight += weight.applyAsInt(item);
                changed.signalAll();
                return;
            }
        } finally {
            lock.unlock();
        }
        writeSafely(List.of(item));
    }

    /** What {@code moreComing} says may have changed: a lingering writer asks again. */
    void nudge() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Whether items are queued or being written. */
    boolean isBusy() {
        lock.lock();
        try {
            return writing || !queue.isEmpty();
        } finally {
            lock.unlock();
        }
    }

    /** Writes what is queued, then stops the writer thread, waiting for it up to {@code timeoutMillis}. */
    void close(long timeoutMillis) {
        lock.lock();
        try {
            closed = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        try {
            thread.join(Math.max(1, timeoutMillis));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void run() {
        while (true) {
            List<T> group = nextGroup();
            if (group.isEmpty()) {
                return;
            }
            try {
                writeSafely(group);
            } finally {
                lock.lock();
                try {
                    writing = false;
                    changed.signalAll();
                } finally {
                    lock.unlock();
                }
            }
        }
    }

    /** Waits for items; an empty group means closed and drained. */
    private List<T> nextGroup() {
        lock.lock();
        try {
            while (queue.isEmpty() && !closed) {
                changed.await(1, TimeUnit.MINUTES);
            }
            long lingerEnd = System.nanoTime() + lingerNanos;
            long lingerLeft;
            while ((lingerLeft = lingerEnd - System.nanoTime()) > 0 && !closed && queuedWeight < maxWeight
                    && moreComing.getAsBoolean()) {
                changed.awaitNanos(lingerLeft);
            }
            List<T> group = new ArrayList<>();
            int groupWeight = 0;
            while (!queue.isEmpty()) {
                int next = weight.applyAsInt(queue.peek());
                if (!group.isEmpty() && groupWeight + next > maxWeight) {
                    break;
                }
                group.add(queue.poll());
                groupWeight += next;
            }
            queuedWeight -= groupWeight;
            writing = !group.isEmpty();
            return group;
        } catch (InterruptedException e) {
            // Nobody interrupts this thread but a JVM shutting down: write what is queued and end.
            closed = true;
            List<T> rest = new ArrayList<>(queue);
            queue.clear();
            queuedWeight = 0;
            writing = !rest.isEmpty();
            return rest;
        } finally {
            lock.unlock();
        }
    }

    private void writeSafely(List<T> group) {
        try {
            writer.accept(group);
        } catch (RuntimeException | Error e) {
            log.error("Outbox: writing a group of {} item(s) failed unexpectedly", group.size(), e);
        }
    }
}
