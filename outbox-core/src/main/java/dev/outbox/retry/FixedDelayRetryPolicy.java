package dev.outbox.retry;

import java.time.Duration;

final class FixedDelayRetryPolicy implements OutboxRetryPolicy {

    private final Duration delay;

    FixedDelayRetryPolicy(Duration delay) {
        this.delay = RetryPolicyArguments.nonNegative("delay", delay);
    }

    @Override
    public Duration nextDelay(int retryCount) {
        RetryPolicyArguments.checkRetryCount(retryCount);
        return delay;
    }

    @Override
    public String toString() {
        return "fixed(" + delay + ")";
    }
}
