package dev.outbox.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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

    /**
     * Writes {@link #nowMicros()} into {@code file} at once (a temporary file moved over it): how a relay tells the
     * driver it is ready, without the driver ever reading a half-written time.
     */
    public static void writeNow(Path file) {
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, Long.toString(nowMicros()), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }
}
