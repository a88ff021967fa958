package dev.outbox.processing;

import dev.outbox.internal.DaemonThreads;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Interrupts handler calls that run past the handler timeout. One timer thread for all workers; a call that finishes
 * in time cancels its timer task, which is then removed at once, so pending tasks never outnumber the workers.
 */
final class HandlerTimeouts implements AutoCloseable {

    private final Duration timeout;
    private final ScheduledThreadPoolExecutor timer;

    HandlerTimeouts(Duration timeout) {
        this.timeout = timeout;
        this.timer = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("outbox-handler-timeouts"));
        timer.setRemoveOnCancelPolicy(true);
    }

    Duration timeout() {
        return timeout;
    }

    /** Starts the clock of a call running on {@code worker}. */
    Deadline start(Thread worker) {
        Deadline deadline = new Deadline(worker);
        deadline.task = timer.schedule(deadline::expire, timeout.toNanos(), TimeUnit.NANOSECONDS);
        return deadline;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }

    /** One call's deadline. The interrupt happens only while the call runs, never after {@link #finish()}. */
    static final class Deadline {
        private final Thread worker;
        private ScheduledFuture<?> task;
        private boolean finished;
        private boolean expired;

        private Deadline(Thread worker) {
            this.worker = worker;
        }

        private synchronized void expire() {
            if (!finished) {
                expired = true;
                worker.interrupt();
            }
        }

        /** Ends the call; true when it ran past the timeout and was interrupted. */
        synchronized boolean finish() {
            finished = true;
            task.cancel(false);
            return expired;
        }
    }
}
