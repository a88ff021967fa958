package dev.outbox.retry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxRetryPolicyTest {

    // ---------------------------------------------------------------- fixed

    @Test
    void fixedReturnsTheSameDelayForEveryRetry() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.fixed(Duration.ofSeconds(10));
        for (int retry : new int[] {1, 2, 3, 10, 1_000, Integer.MAX_VALUE}) {
            assertThat(policy.nextDelay(retry)).as("retry %d", retry).isEqualTo(Duration.ofSeconds(10));
        }
        assertThat(OutboxRetryPolicy.fixed(Duration.ZERO).nextDelay(1)).isEqualTo(Duration.ZERO);
    }

    @Test
    void fixedRetriesEveryExceptionByDefault() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.fixed(Duration.ofSeconds(1));
        assertThat(policy.shouldRetry(new IOException("x"))).isTrue();
        assertThat(policy.shouldRetry(new IllegalStateException("x"))).isTrue();
        assertThat(policy.shouldRetry(new StackOverflowError())).isTrue();
    }

    @Test
    void fixedRejectsNegativeOrNullDelayNamingTheArgument() {
        assertThatThrownBy(() -> OutboxRetryPolicy.fixed(Duration.ofMillis(-1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("delay")
                .hasMessageContaining("PT-0.001S");
        assertThatThrownBy(() -> OutboxRetryPolicy.fixed(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("delay");
    }

    @ParameterizedTest
    @ValueSource(ints = {0, -1, Integer.MIN_VALUE})
    void retryNumbersStartAtOne(int retryCount) {
        List<OutboxRetryPolicy> policies = List.of(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)),
                OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(60), 2.0),
                OutboxRetryPolicy.jittered(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)), Duration.ofMillis(5),
                        new Random(1)));
        for (OutboxRetryPolicy policy : policies) {
            assertThatThrownBy(() -> policy.nextDelay(retryCount)).as(policy.toString())
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("retryCount")
                    .hasMessageContaining(String.valueOf(retryCount));
        }
    }

    // ---------------------------------------------------------------- exponential

    @Test
    void exponentialDoublesFromTheInitialDelayAndIsCappedAtTheMaximum() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(60), 2.0);

        List<Duration> delays = new ArrayList<>();
        for (int retry = 1; retry <= 9; retry++) {
            delays.add(policy.nextDelay(retry));
        }

        assertThat(delays).containsExactly(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(4),
                Duration.ofSeconds(8), Duration.ofSeconds(16), Duration.ofSeconds(32), Duration.ofSeconds(60),
                Duration.ofSeconds(60), Duration.ofSeconds(60));
    }

    @Test
    void exponentialWithOtherMultipliers() {
        OutboxRetryPolicy oneAndAHalf =
                OutboxRetryPolicy.exponential(Duration.ofMillis(1000), Duration.ofSeconds(10), 1.5);
        assertThat(oneAndAHalf.nextDelay(1)).isEqualTo(Duration.ofMillis(1000));
        assertThat(oneAndAHalf.nextDelay(2)).isEqualTo(Duration.ofMillis(1500));
        assertThat(oneAndAHalf.nextDelay(3)).isEqualTo(Duration.ofMillis(2250));
        assertThat(oneAndAHalf.nextDelay(4)).isEqualTo(Duration.ofMillis(3375));

        OutboxRetryPolicy constant = OutboxRetryPolicy.exponential(Duration.ofSeconds(3), Duration.ofSeconds(10), 1.0);
        assertThat(constant.nextDelay(1)).isEqualTo(Duration.ofSeconds(3));
        assertThat(constant.nextDelay(1_000_000)).isEqualTo(Duration.ofSeconds(3));
    }

    @Test
    void exponentialStartingAtTheMaximumStaysThere() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.exponential(Duration.ofSeconds(5), Duration.ofSeconds(5), 3.0);
        assertThat(policy.nextDelay(1)).isEqualTo(Duration.ofSeconds(5));
        assertThat(policy.nextDelay(50)).isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    void hugeRetryCountsDoNotOverflowAndStayAtTheCap() {
        Duration max = Duration.ofDays(7);
        OutboxRetryPolicy policy = OutboxRetryPolicy.exponential(Duration.ofSeconds(1), max, 10.0);
        for (int retry : new int[] {20, 64, 100, 1_000, 1_000_000, Integer.MAX_VALUE}) {
            assertThat(policy.nextDelay(retry)).as("retry %d", retry).isEqualTo(max);
        }

        Duration previous = Duration.ZERO;
        OutboxRetryPolicy doubling = OutboxRetryPolicy.exponential(Duration.ofMillis(1), Duration.ofDays(365), 2.0);
        for (int retry = 1; retry <= 5_000; retry++) {
            Duration delay = doubling.nextDelay(retry);
            assertThat(delay).as("retry %d", retry).isPositive().isLessThanOrEqualTo(Duration.ofDays(365))
                    .isGreaterThanOrEqualTo(previous);
            previous = delay;
        }
        assertThat(previous).isEqualTo(Duration.ofDays(365));
    }

    @Test
    void exponentialWithAVeryLargeCapDoesNotOverflow() {
        Duration max = Duration.ofMillis(Long.MAX_VALUE);
        OutboxRetryPolicy policy = OutboxRetryPolicy.exponential(Duration.ofSeconds(1), max, 2.0);
        assertThat(policy.nextDelay(Integer.MAX_VALUE)).isEqualTo(max);
        assertThat(policy.nextDelay(70)).isPositive().isLessThanOrEqualTo(max);
    }

    @Test
    void exponentialFromZeroStaysZero() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.exponential(Duration.ZERO, Duration.ofSeconds(10), 2.0);
        assertThat(policy.nextDelay(1)).isEqualTo(Duration.ZERO);
        assertThat(policy.nextDelay(Integer.MAX_VALUE)).isEqualTo(Duration.ZERO);
    }

    @Test
    void exponentialRejectsInvalidArgumentsNamingThem() {
        Duration second = Duration.ofSeconds(1);
        Duration minute = Duration.ofMinutes(1);
        assertThatThrownBy(() -> OutboxRetryPolicy.exponential(Duration.ofSeconds(-1), minute, 2.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initialDelay");
        assertThatThrownBy(() -> OutboxRetryPolicy.exponential(second, Duration.ofSeconds(-1), 2.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDelay");
        assertThatThrownBy(() -> OutboxRetryPolicy.exponential(minute, second, 2.0))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("maxDelay")
                .hasMessageContaining("initialDelay");
        for (double multiplier : new double[] {0.99, 0.0, -2.0, Double.NaN, Double.POSITIVE_INFINITY}) {
            assertThatThrownBy(() -> OutboxRetryPolicy.exponential(second, minute, multiplier))
                    .as("multiplier %s", multiplier)
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("multiplier")
                    .hasMessageContaining(String.valueOf(multiplier));
        }
        assertThatThrownBy(() -> OutboxRetryPolicy.exponential(null, minute, 2.0))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("initialDelay");
        assertThatThrownBy(() -> OutboxRetryPolicy.exponential(second, null, 2.0))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("maxDelay");
    }

    // ---------------------------------------------------------------- jittered

    @Test
    void jitteredFixedStaysWithinBaseAndBasePlusJitterAndReachesBothEnds() {
        Duration base = Duration.ofSeconds(1);
        Duration jitter = Duration.ofMillis(200);
        OutboxRetryPolicy policy = OutboxRetryPolicy.jittered(OutboxRetryPolicy.fixed(base), jitter, new Random(42));

        Duration min = null;
        Duration max = null;
        for (int i = 0; i < 20_000; i++) {
            Duration delay = policy.nextDelay(1 + i % 7);
            assertThat(delay).isBetween(base, base.plus(jitter));
            min = min == null || delay.compareTo(min) < 0 ? delay : min;
            max = max == null || delay.compareTo(max) > 0 ? delay : max;
        }
        assertThat(min).isEqualTo(base);
        assertThat(max).isEqualTo(base.plus(jitter));
    }

    @Test
    void jitteredExponentialStaysWithinEachRetrysWindowAndReachesBothEnds() {
        OutboxRetryPolicy base = OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(30), 2.0);
        Duration jitter = Duration.ofMillis(50);
        OutboxRetryPolicy policy = OutboxRetryPolicy.jittered(base, jitter, new Random(7));

        for (int retry = 1; retry <= 8; retry++) {
            Duration low = base.nextDelay(retry);
            Duration high = low.plus(jitter);
            boolean sawLow = false;
            boolean sawHigh = false;
            for (int i = 0; i < 5_000; i++) {
                Duration delay = policy.nextDelay(retry);
                assertThat(delay).as("retry %d", retry).isBetween(low, high);
                sawLow |= delay.equals(low);
                sawHigh |= delay.equals(high);
            }
            assertThat(sawLow).as("retry %d reaches %s", retry, low).isTrue();
            assertThat(sawHigh).as("retry %d reaches %s", retry, high).isTrue();
        }
    }

    @Test
    void jitterActuallySpreadsTheDelays() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.jittered(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)),
                Duration.ofMillis(100), new Random(3));
        long distinct = java.util.stream.IntStream.range(0, 2_000).mapToObj(i -> policy.nextDelay(1)).distinct()
                .count();
        assertThat(distinct).isEqualTo(101);
    }

    @Test
    void jitteredWithTheSameSeedIsReproducible() {
        OutboxRetryPolicy base = OutboxRetryPolicy.fixed(Duration.ofSeconds(2));
        OutboxRetryPolicy first = OutboxRetryPolicy.jittered(base, Duration.ofSeconds(1), new Random(99));
        OutboxRetryPolicy second = OutboxRetryPolicy.jittered(base, Duration.ofSeconds(1), new Random(99));
        for (int i = 1; i <= 100; i++) {
            assertThat(first.nextDelay(i)).isEqualTo(second.nextDelay(i));
        }
    }

    @Test
    void jitteredWithDefaultRandomnessStaysInRange() {
        OutboxRetryPolicy policy = OutboxRetryPolicy.jittered(OutboxRetryPolicy.fixed(Duration.ofMillis(500)),
                Duration.ofMillis(10));
        for (int i = 0; i < 1_000; i++) {
            assertThat(policy.nextDelay(1)).isBetween(Duration.ofMillis(500), Duration.ofMillis(510));
        }
    }

    @Test
    void zeroJitterReturnsTheBaseDelay() {
        OutboxRetryPolicy base = OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(8), 2.0);
        OutboxRetryPolicy policy = OutboxRetryPolicy.jittered(base, Duration.ZERO, new Random(1));
        for (int retry = 1; retry <= 6; retry++) {
            assertThat(policy.nextDelay(retry)).isEqualTo(base.nextDelay(retry));
        }
    }

    @Test
    void jitteredRejectsInvalidArgumentsNamingThem() {
        OutboxRetryPolicy base = OutboxRetryPolicy.fixed(Duration.ofSeconds(1));
        assertThatThrownBy(() -> OutboxRetryPolicy.jittered(base, Duration.ofMillis(-5), new Random()))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("jitter");
        assertThatThrownBy(() -> OutboxRetryPolicy.jittered(base, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("jitter");
        assertThatThrownBy(() -> OutboxRetryPolicy.jittered(null, Duration.ofMillis(5)))
                .isInstanceOf(NullPointerException.class).hasMessageContaining("base");
    }

    @Test
    void jitteredDelegatesShouldRetryToItsBase() {
        OutboxRetryPolicy onlyIo = new OutboxRetryPolicy() {
            @Override
            public boolean shouldRetry(Throwable exception) {
                return exception instanceof IOException;
            }

            @Override
            public Duration nextDelay(int retryCount) {
                return Duration.ofSeconds(retryCount);
            }
        };
        OutboxRetryPolicy jittered = OutboxRetryPolicy.jittered(onlyIo, Duration.ofMillis(10), new Random(5));

        assertThat(jittered.shouldRetry(new IOException("network"))).isTrue();
        assertThat(jittered.shouldRetry(new IllegalArgumentException("poison"))).isFalse();
        assertThat(jittered.shouldRetry(new AssertionError("bug"))).isFalse();
        assertThat(jittered.nextDelay(3)).isBetween(Duration.ofSeconds(3), Duration.ofMillis(3010));
    }

    // ---------------------------------------------------------------- custom

    @Test
    void customPolicyAsAnAnonymousClassOverridesShouldRetryAndKeepsItsOwnDelays() {
        OutboxRetryPolicy custom = new OutboxRetryPolicy() {
            @Override
            public boolean shouldRetry(Throwable exception) {
                return !(exception instanceof IllegalArgumentException);
            }

            @Override
            public Duration nextDelay(int retryCount) {
                return Duration.ofMinutes(retryCount * 5L);
            }
        };

        assertThat(custom.shouldRetry(new IllegalArgumentException("bad payload"))).isFalse();
        assertThat(custom.shouldRetry(new NumberFormatException("subclass of IAE"))).isFalse();
        assertThat(custom.shouldRetry(new IllegalStateException("transient"))).isTrue();
        assertThat(custom.nextDelay(1)).isEqualTo(Duration.ofMinutes(5));
        assertThat(custom.nextDelay(4)).isEqualTo(Duration.ofMinutes(20));
    }

    @Test
    void policiesDescribeThemselves() {
        assertThat(OutboxRetryPolicy.fixed(Duration.ofSeconds(10))).hasToString("fixed(PT10S)");
        assertThat(OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(60), 2.0).toString())
                .contains("PT1S").contains("PT1M").contains("2.0");
        assertThat(OutboxRetryPolicy.jittered(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)), Duration.ofMillis(5))
                .toString()).contains("fixed(PT1S)").contains("PT0.005S");
    }
}
