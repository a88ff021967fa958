package dev.outbox.benchmark.publish;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;

/**
 * The unacknowledged messages of one plain-client run, at most {@code window}: a send takes a place, an
 * acknowledgement gives it back. Keeps the first send and the first and last acknowledgement, and the first failure
 * (a refusal, a returned message), which ends the run.
 */
final class AckWindow {

    /** No acknowledgement for this long is a broker that stopped answering: the run fails. */
    private static final Duration STALLED = Duration.ofSeconds(60);

    private final int window;
    private final int expected;
    private final Semaphore room;
    private final AtomicLong acknowledged = new AtomicLong();
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicReference<@Nullable String> failure = new AtomicReference<>();
    private volatile long firstSend;
    private volatile long firstAck;
    private volatile long lastAck;

    AckWindow(int window, int expected) {
        this.window = window;
        this.expected = expected;
        this.room = new Semaphore(window);
    }

    /** Waits for a place for the next send. */
    void take() throws InterruptedException {
        if (!room.tryAcquire(STALLED.toSeconds(), TimeUnit.SECONDS)) {
            failed("no acknowledgement within " + STALLED + " with " + window + " messages in flight");
        }
        throwIfFailed();
        if (firstSend == 0) {
            firstSend = System.nanoTime();
        }
    }

    void acknowledged(int messages) {
        long now = System.nanoTime();
        synchronized (this) {
            if (firstAck == 0) {
                firstAck = now;
            }
            lastAck = now;
        }
        room.release(messages);
        if (acknowledged.addAndGet(messages) >= expected) {
            done.countDown();
        }
    }

    void failed(String why) {
        failure.compareAndSet(null, why);
        room.release(window);
        done.countDown();
    }

    /** Waits until every message was acknowledged or the run failed. */
    ReferenceRun await(String settings) throws InterruptedException {
        while (!done.await(STALLED.toSeconds(), TimeUnit.SECONDS)) {
            if (acknowledged.get() == 0 || System.nanoTime() - lastAck > STALLED.toNanos()) {
                failed("no acknowledgement within " + STALLED + ", " + acknowledged.get() + " of " + expected);
            }
        }
        throwIfFailed();
        return new ReferenceRun(expected, window, seconds(lastAck - firstAck), seconds(lastAck - firstSend),
                settings);
    }

    private void throwIfFailed() {
        String why = failure.get();
        if (why != null) {
            throw new IllegalStateException("plain-client reference failed: " + why);
        }
    }

    private static double seconds(long nanos) {
        return Math.round(nanos / 1_000_000.0) / 1_000.0;
    }
}
