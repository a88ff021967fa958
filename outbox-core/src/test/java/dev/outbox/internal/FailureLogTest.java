package dev.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A lasting failure is logged when it starts, then once per interval, and its end is told with its length. */
class FailureLogTest {

    private final AtomicLong nanos = new AtomicLong();
    private final FailureLog log = new FailureLog(Duration.ofMinutes(1), nanos::get);

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void theFirstFailureIsLoggedThenOncePerIntervalAndTheEndWithItsLength() {
        assertThat(log.succeeded()).as("no failure to end").isNull();

        assertThat(log.failed()).isTrue();
        advance(Duration.ofSeconds(59));
        assertThat(log.failed()).isFalse();
        assertThat(log.isFailing()).isTrue();
        advance(Duration.ofSeconds(1));
        assertThat(log.failed()).isTrue();
        assertThat(log.failingFor()).isEqualTo(Duration.ofMinutes(1));

        advance(Duration.ofSeconds(5));
        assertThat(log.succeeded()).isEqualTo(Duration.ofSeconds(65));
        assertThat(log.isFailing()).isFalse();
        assertThat(log.failingFor()).isZero();
        assertThat(log.failed()).as("a new run starts with a log line").isTrue();
    }

    @Test
    void checksNameTheSettingAndTheLimit() {
        assertThatThrownBy(() -> Checks.positive("outbox.poll-interval", Duration.ZERO))
                .hasMessage("outbox.poll-interval must be positive but was PT0S");
        assertThatThrownBy(() -> Checks.notNegative("outbox.purge.retention", Duration.ofSeconds(-1)))
                .hasMessage("outbox.purge.retention must not be negative but was PT-1S");
        assertThatThrownBy(() -> Checks.inRange("outbox.batch-size", 0, 1, 10))
                .hasMessage("outbox.batch-size must be between 1 and 10 but was 0");
        assertThatThrownBy(() -> Checks.atLeast("outbox.metrics.max-event-types", 0, 1))
                .hasMessage("outbox.metrics.max-event-types must be at least 1 but was 0");
        assertThatThrownBy(() -> Checks.requireText("instanceId", " ", 255))
                .hasMessage("instanceId must not be blank");
        assertThatThrownBy(() -> Checks.requireText("instanceId", "x".repeat(256), 255))
                .hasMessage("instanceId is 256 characters long; the limit is 255");
        assertThatThrownBy(() -> new FailureLog(Duration.ZERO, nanos::get)).hasMessageContaining("interval");
    }
}
