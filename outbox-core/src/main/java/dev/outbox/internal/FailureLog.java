package dev.outbox.internal;

import java.time.Duration;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * When a failure that repeats (an unreachable database, say) is worth a log line: its first occurrence, then at most
 * once per interval while it lasts, and its end. Keeps logs useful during an outage without flooding them.
 */
public final class FailureLog {

    /** How often a lasting failure is logged again unless told otherwise. */
    public static final Duration DEFAULT_INTERVAL = Duration.ofMinutes(1);

    private final long intervalNanos;
    private final LongSupplier nanoClock;
    private boolean failing;
    private long sinceNanos;
    private long lastLoggedNanos;

    /**
     * @param interval the least time between two log lines of one failure
     * @param nanoClock a monotonic clock in nanoseconds, {@code System::nanoTime} outside tests
     */
    public FailureLog(Duration interval, LongSupplier nanoClock) {
        this.intervalNanos = Checks.positive("interval", interval).toNanos();
        this.nanoClock = nanoClock;
    }

    /** A log of {@link #DEFAULT_INTERVAL} on {@code System::nanoTime}. */
    public static FailureLog everyMinute() {
        return new FailureLog(DEFAULT_INTERVAL, System::nanoTime);
    }

    /** Notes a failure; true when it should be logged: the first of a run, or the first one an interval later. */
    public synchronized boolean failed() {
        long now = nanoClock.getAsLong();
        if (!failing) {
            failing = true;
            sinceNanos = now;
            lastLoggedNanos = now;
            return true;
        }
        if (now - lastLoggedNanos >= intervalNanos) {
            lastLoggedNanos = now;
            return true;
        }
        return false;
    }

    /** Whether a run of failures is going on. */
    public synchronized boolean isFailing() {
        return failing;
    }

    /** How long the failures have lasted; zero when none is going on. */
    public synchronized Duration failingFor() {
        return failing ? Duration.ofNanos(nanoClock.getAsLong() - sinceNanos) : Duration.ZERO;
    }

    /** Notes a success; returns how long the failures lasted when it ends a run of them, else null. */
    public synchronized @Nullable Duration succeeded() {
        if (!failing) {
            return null;
        }
        failing = false;
        return Duration.ofNanos(nanoClock.getAsLong() - sinceNanos);
    }
}
