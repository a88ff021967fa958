package dev.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** When a lasting failure is worth a log line, on a monotonic clock the test sets. */
class FailureLogTest {

    private static final Duration INTERVAL = Duration.ofMinutes(1);

    private final AtomicLong nanos = new AtomicLong(5_000_000_000L);
    private final FailureLog log = new FailureLog(INTERVAL, nanos::get);

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void theFirstFailureOfARunIsLogged() {
        assertThat(log.isFailing()).isFalse();
        assertThat(log.failingFor()).isZero();

        assertThat(log.failed()).isTrue();

        assertThat(log.isFailing()).isTrue();
    }

    @Test
    void repeatsWithinTheIntervalAreNotLoggedAndTheFirstOneAnIntervalLaterIs() {
        log.failed();

        advance(Duration.ofSeconds(1));
        assertThat(log.failed()).isFalse();
        advance(INTERVAL.minusSeconds(1).minusNanos(1));
        assertThat(log.failed()).as("one nanosecond short of the interval").isFalse();
        advance(Duration.ofNanos(1));
        assertThat(log.failed()).as("a whole interval after the first line").isTrue();

        // The next interval counts from that line, not from the start of the run.
        advance(INTERVAL.minusSeconds(1));
        assertThat(log.failed()).isFalse();
        advance(Duration.ofSeconds(1));
        assertThat(log.failed()).isTrue();
    }

    @Test
    void failingForIsTheTimeSinceTheFirstFailureOfTheRun() {
        log.failed();
        advance(Duration.ofSeconds(30));
        log.failed();
        advance(Duration.ofSeconds(45));

        assertThat(log.failingFor()).isEqualTo(Duration.ofSeconds(75));
    }

    @Test
    void succeededReturnsTheLengthOfTheRunAndResets() {
        log.failed();
        advance(Duration.ofSeconds(90));
        log.failed();
        advance(Duration.ofSeconds(10));

        assertThat(log.succeeded()).isEqualTo(Duration.ofSeconds(100));

        assertThat(log.isFailing()).isFalse();
        assertThat(log.failingFor()).isZero();
        assertThat(log.succeeded()).as("no run to end").isNull();
        advance(Duration.ofSeconds(1));
        assertThat(log.failed()).as("a new run is logged at once").isTrue();
        advance(Duration.ofSeconds(2));
        assertThat(log.succeeded()).as("measured from the new run's start").isEqualTo(Duration.ofSeconds(2));
    }

    @Test
    void aSuccessWithoutFailuresIsNoRun() {
        assertThat(log.succeeded()).isNull();
        assertThat(log.isFailing()).isFalse();
    }

    @Test
    void theIntervalMustBePositive() {
        assertThatThrownBy(() -> new FailureLog(Duration.ZERO, nanos::get))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("interval must be positive but was PT0S");
    }

    @Test
    void everyMinuteLogsTheFirstFailureAndThenWaits() {
        FailureLog everyMinute = FailureLog.everyMinute();
        assertThat(FailureLog.DEFAULT_INTERVAL).isEqualTo(Duration.ofMinutes(1));

        assertThat(everyMinute.failed()).isTrue();
        // A minute cannot pass between these two calls in any sane test run.
        assertThat(everyMinute.failed()).isFalse();
    }
}
