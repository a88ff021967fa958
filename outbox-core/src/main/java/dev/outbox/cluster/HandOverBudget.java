package dev.outbox.cluster;

import dev.outbox.internal.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * The hand-over timeout of one stop ({@code outbox.instance.hand-over-timeout-seconds}), shared by its database steps:
 * each runs on a thread of its own and is waited for no longer than what the steps before it left, so that a database
 * that does not answer cannot hold the stop for a pool's timeout.
 */
final class HandOverBudget {

    private final Duration timeout;
    private final LongSupplier nanoClock;
    /** What the database steps have used of {@link #timeout} in this stop. */
    private long spentNanos;

    HandOverBudget(Duration timeout, LongSupplier nanoClock) {
        this.timeout = timeout;
        this.nanoClock = nanoClock;
    }

    Duration timeout() {
        return timeout;
    }

    /** For the next stop: a coordinator may be started again. */
    synchronized void restart() {
        spentNanos = 0;
    }

    synchronized long remainingNanos() {
        return Math.max(0, timeout.toNanos() - spentNanos);
    }

    /**
     * Runs one database step and waits for it no longer than what is left of the timeout.
     *
     * @throws TimedOut when the timeout ran out first (or the wait was interrupted); the step is interrupted
     * @throws RuntimeException what the step threw
     */
    void run(String step, Runnable databaseStep) {
        long remaining = remainingNanos();
        long started = nanoClock.getAsLong();
        ExecutorService thread = Executors.newSingleThreadExecutor(DaemonThreads.named("outbox-hand-over-" + step));
        try {
            Future<?> done = thread.submit(databaseStep);
            try {
                done.get(Math.max(0, remaining), TimeUnit.NANOSECONDS);
            } catch (TimeoutException e) {
                done.cancel(true);
                throw new TimedOut();
            } catch (ExecutionException e) {
                throw e.getCause() instanceof RuntimeException failure ? failure
                        : new IllegalStateException(e.getCause());
            } catch (InterruptedException e) {
                done.cancel(true);
                Thread.currentThread().interrupt();
                throw new TimedOut();
            }
        } finally {
            thread.shutdownNow();
            synchronized (this) {
                spentNanos += nanoClock.getAsLong() - started;
            }
        }
    }

    /** The hand-over timeout ran out before a database step answered. */
    static final class TimedOut extends RuntimeException {
        private static final long serialVersionUID = 1L;

        TimedOut() {
            super(null, null, false, false);
        }
    }
}
