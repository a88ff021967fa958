package dev.outbox.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every failure names the setting and the limit, so a misconfiguration is fixed from the message alone. */
class ChecksTest {

    @Test
    void positiveAcceptsAPositiveDurationAndReturnsIt() {
        Duration value = Duration.ofNanos(1);
        assertThat(Checks.positive("outbox.poll-interval", value)).isSameAs(value);
    }

    @Test
    void positiveRefusesZeroNegativeAndNull() {
        assertThatThrownBy(() -> Checks.positive("outbox.poll-interval", Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.poll-interval must be positive but was PT0S");
        assertThatThrownBy(() -> Checks.positive("outbox.poll-interval", Duration.ofSeconds(-1)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.poll-interval must be positive but was PT-1S");
        assertThatThrownBy(() -> Checks.positive("outbox.poll-interval", null))
                .isInstanceOf(NullPointerException.class).hasMessage("outbox.poll-interval must not be null");
    }

    @Test
    void notNegativeAcceptsZeroAndRefusesNegativeAndNull() {
        assertThat(Checks.notNegative("delay", Duration.ZERO)).isZero();
        assertThatThrownBy(() -> Checks.notNegative("delay", Duration.ofMillis(-5)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("delay must not be negative but was PT-0.005S");
        assertThatThrownBy(() -> Checks.notNegative("delay", null))
                .isInstanceOf(NullPointerException.class).hasMessage("delay must not be null");
    }

    @Test
    void inRangeAcceptsBothBoundsAndNamesTheRangeWhenOutside() {
        assertThat(Checks.inRange("outbox.batch-size", 1, 1, 10_000)).isEqualTo(1);
        assertThat(Checks.inRange("outbox.batch-size", 10_000, 1, 10_000)).isEqualTo(10_000);

        assertThatThrownBy(() -> Checks.inRange("outbox.batch-size", 0, 1, 10_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.batch-size must be between 1 and 10000 but was 0");
        assertThatThrownBy(() -> Checks.inRange("outbox.batch-size", 10_001, 1, 10_000))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.batch-size must be between 1 and 10000 but was 10001");
    }

    @Test
    void requireTextAcceptsTextUpToTheLimit() {
        assertThat(Checks.requireText("instanceId", "abcde", 5)).isEqualTo("abcde");
    }

    @Test
    void requireTextRefusesNullBlankAndTooLongTextNamingTheLimit() {
        assertThatThrownBy(() -> Checks.requireText("instanceId", null, 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("instanceId must not be blank");
        assertThatThrownBy(() -> Checks.requireText("instanceId", " \t", 5))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("instanceId must not be blank");
        assertThatThrownBy(() -> Checks.requireText("instanceId", "abcdef", 5))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("instanceId is 6 characters long; the limit is 5");
    }
}
