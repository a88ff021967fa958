package dev.outbox.benchmark;

import java.time.Instant;

/**
 * Wall-clock time in epoch microseconds that never steps: one reading of the system clock when the class loads, plus
 * {@link System#nanoTime()} elapsed since. Every process of a run (driver and nodes) runs on this machine, so their
 * readings are comparable; within one process they are monotonic even if the system clock is set meanwhile.
 */
public final class BenchClock {

    private static final long BASE_NANOS;
    private static final long BASE_MICROS;

    static {
        Instant now = Instant.now();
        BASE_NANOS = System.nanoTime();
        BASE_MICROS = now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    private BenchClock() {
    }

    public static long nowMicros() {
        return BASE_MICROS + (System.nanoTime() - BASE_NANOS) / 1_000;
    }
}
