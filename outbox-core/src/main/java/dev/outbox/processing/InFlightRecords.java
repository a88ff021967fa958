package dev.outbox.processing;

import dev.outbox.spi.Delivery;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * The acknowledgement tracking of one {@link PublishingWorker} batch: its records sent and not yet settled, their
 * acknowledgement deadlines, and the timer that wakes the batch at the next of them. Confined, like the batch, to the thread that holds the batch's scheduled flag.
 */
final class InFlightRecords {

    private final long timeoutNanos;
    private final ScheduledExecutorService timer;
    private final Runnable wakeUp;
    /** In send order, which is deadline order; settled entries are dropped lazily. */
    private final ArrayDeque<Sending> bySendTime = new ArrayDeque<>();
    private int pending;
    private @Nullable ScheduledFuture<?> wakeAtDeadline;
    private long wakeAtDeadlineFor;

    /**
     * @param timeout the publisher's acknowledgement timeout
     * @param wakeUp runs the batch again; the timer calls it at the next deadline
     */
    InFlightRecords(Duration timeout, ScheduledExecutorService timer, Runnable wakeUp) {
        this.timeoutNanos = nanos(timeout);
        this.timer = timer;
        this.wakeUp = wakeUp;
    }

    /** Records {@code delivery} as sent at {@code sentAt} (a {@link System#nanoTime()}). */
    Sending add(LaneRun lane, Delivery delivery, HandlerRoute route, long sentAt) {
        Sending sending = new Sending(lane, delivery, route, sentAt, sentAt + timeoutNanos);
        bySendTime.addLast(sending);
        pending++;
        return sending;
    }

    /** How many records are in flight and not settled. */
    int pending() {
        return pending;
    }

    /** Settles an acknowledged record; false when it was settled already: its deadline passed first. */
    boolean settle(Sending sending) {
        if (sending.settled) {
            return false;
        }
        sending.settled = true;
        pending--;
        return true;
    }

    /** The oldest record past its deadline at {@code now}, settled now (as timed out); null when there is none. */
    @Nullable Sending pollOverdue(long now) {
        Sending oldest;
        while ((oldest = bySendTime.peekFirst()) != null && (oldest.settled || now - oldest.deadline >= 0)) {
            bySendTime.pollFirst();
            if (settle(oldest)) {
                return oldest;
            }
        }
        return null;
    }

    /**
     * Has the timer wake the batch at its next deadline, unless it will already. Only with a record in
     * flight.
     *
     * @return false when the timer is closed: the processor is
     */
    boolean armTimer() {
        Sending oldest;
        while ((oldest = bySendTime.peekFirst()) != null && oldest.settled) {
            bySendTime.pollFirst();
        }
        long next = bySendTime.getFirst().deadline;
        if (wakeAtDeadline != null && wakeAtDeadlineFor == next) {
            return true;
        }
        if (wakeAtDeadline != null) {
            wakeAtDeadline.cancel(false);
        }
        try {
            wakeAtDeadline = timer.schedule(wakeUp, Math.max(0, next - System.nanoTime()), TimeUnit.NANOSECONDS);
            wakeAtDeadlineFor = next;
            return true;
        } catch (RejectedExecutionException e) {
            wakeAtDeadline = null;
            return false;
        }
    }

    /** When the armed timer goes off, as a {@link System#nanoTime()}. */
    long timerAt() {
        return wakeAtDeadlineFor;
    }

    void cancelTimer() {
        if (wakeAtDeadline != null) {
            wakeAtDeadline.cancel(false);
        }
    }

    private static long nanos(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalStateException("acknowledgementTimeout of a publisher must be positive, was " + timeout);
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    /** A record sent and not yet settled. */
    static final class Sending {
        final LaneRun lane;
        final Delivery delivery;
        final HandlerRoute route;
        final long sentAt;
        final long deadline;
        boolean settled;

        Sending(LaneRun lane, Delivery delivery, HandlerRoute route, long sentAt, long deadline) {
            this.lane = lane;
            this.delivery = delivery;
            this.route = route;
            this.sentAt = sentAt;
            this.deadline = deadline;
        }
    }
}
