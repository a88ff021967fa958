package dev.outbox.retry;

import dev.outbox.internal.Checks;
import java.time.Duration;

final class ExponentialBackoffRetryPolicy implements OutboxRetryPolicy {

    private final Duration initialDelay;
    private final Duration maxDelay;
    private final double multiplier;

    ExponentialBackoffRetryPolicy(Duration initialDelay, Duration maxDelay, double multiplier) {
        this.initialDelay = Checks.notNegative("initialDelay", initialDelay);
        this.maxDelay = Checks.notNegative("maxDelay", maxDelay);
        if (maxDelay.compareTo(initialDelay) < 0) {
            throw new IllegalArgumentException(
                    "maxDelay must be >= initialDelay (" + initialDelay + ") but was " + maxDelay);
        }
        if (!(multiplier >= 1.0) || Double.isInfinite(multiplier)) {
            throw new IllegalArgumentException("multiplier must be a finite number >= 1.0 but was " + multiplier);
        }
        this.multiplier = multiplier;
        try {
            maxDelay.toMillis();
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("maxDelay is too large to count in milliseconds: " + maxDelay, e);
        }
    }

    @Override
    public Duration nextDelay(int retryCount) {
        Checks.inRange("retryCount", retryCount, 1, Integer.MAX_VALUE);
        double millis = initialDelay.toMillis() * Math.pow(multiplier, retryCount - 1);
        // Compare as doubles first: the power overflows long long before it overflows double.
        if (millis >= maxDelay.toMillis()) {
            return maxDelay;
        }
        return Duration.ofMillis((long) millis);
    }

    @Override
    public String toString() {
        return "exponential(initial=" + initialDelay + ", max=" + maxDelay + ", multiplier=" + multiplier + ")";
    }
}
