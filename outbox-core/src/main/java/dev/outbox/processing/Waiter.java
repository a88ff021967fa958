package dev.outbox.processing;

import java.time.Duration;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

/**
 * How the poll loop waits and is woken: by a wake-up (records were committed, partitions gained), by the release of a
 * lane (its later records may be fetched now), by a stop, or by its timeout.
 */
final class Waiter {

    private final ReentrantLock lock = new ReentrantLock();
    private final Condition changed = lock.newCondition();
    private boolean wakeUpRequested;
    private long releases;

    /** Asks the loop to fetch now instead of at the end of its wait. */
    void wakeUp() {
        lock.lock();
        try {
            wakeUpRequested = true;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** A lane was released; called after the lane table changed. */
    void released() {
        lock.lock();
        try {
            releases++;
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** Something the loop's conditions read changed (it stops, say). */
    void changed() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Waits for a wake-up, the timeout, the end of {@code running}, or, when {@code orRelease}, a lane's release; a
     * wake-up is consumed.
     */
    void await(Duration timeout, boolean orRelease, BooleanSupplier running) throws InterruptedException {
        lock.lock();
        try {
            long releasesBefore = releases;
            long nanos = timeout.toNanos();
            while (!wakeUpRequested && running.getAsBoolean() && nanos > 0
                    && !(orRelease && releases != releasesBefore)) {
                nanos = changed.awaitNanos(nanos);
            }
            wakeUpRequested = false;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until {@code condition} holds; it is checked again after every release and change. */
    void awaitUntil(BooleanSupplier condition) throws InterruptedException {
        lock.lock();
        try {
            while (!condition.getAsBoolean()) {
                changed.await();
            }
        } finally {
            lock.unlock();
        }
    }
}
