package dev.outbox.retry;

import dev.outbox.internal.Checks;
import java.time.Duration;

final class FixedDelayRetryPolicy implements OutboxRetryPolicy {

    private final Duration delay;

    FixedDelayRetryPolicy(Duration delay) {
        this.delay = Checks.notNegative("delay", delay);
    }

    @Override
    public Duration nextDelay(int retryCount) {
        Checks.inRange("retryCount", retryCount, 1, Integer.MAX_VALUE);
        return delay;
    }

    @Override
    public String toString() {
        return "fixed(" + delay + ")";
    }
}
