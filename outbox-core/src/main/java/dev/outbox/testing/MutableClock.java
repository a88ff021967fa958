package dev.outbox.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Objects;

/** A clock that stands still until a test moves it. Thread-safe. */
public final class MutableClock extends Clock {

    private volatile Instant now;
    private final ZoneId zone;

    public MutableClock(Instant start) {
        this(start, ZoneOffset.UTC);
    }

    private MutableClock(Instant start, ZoneId zone) {
        this.now = Objects.requireNonNull(start, "start");
        this.zone = zone;
    }

    /** A clock at the current time, truncated to microseconds as databases store it. */
    public static MutableClock startingNow() {
        return new MutableClock(Instant.now().truncatedTo(java.time.temporal.ChronoUnit.MICROS));
    }

    public synchronized void advance(Duration duration) {
        now = now.plus(duration);
    }

    public void set(Instant instant) {
        now = Objects.requireNonNull(instant, "instant");
    }

    @Override
    public Instant instant() {
        return now;
    }

    @Override
    public ZoneId getZone() {
        return zone;
    }

    @Override
    public Clock withZone(ZoneId zone) {
        return new MutableClock(now, zone);
    }
}
