package dev.outbox.retry;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalInt;

/** A policy with its own bound on the number of retries; delays and the retry decision are the base policy's. */
final class BoundedRetryPolicy implements OutboxRetryPolicy {

    private final OutboxRetryPolicy base;
    private final int maxRetries;

    BoundedRetryPolicy(OutboxRetryPolicy base, int maxRetries) {
        this.base = Objects.requireNonNull(base, "base");
        if (maxRetries < 0) {
            throw new IllegalArgumentException("maxRetries must be >= 0 but was " + maxRetries);
        }
        this.maxRetries = maxRetries;
    }

    @Override
    public boolean shouldRetry(Throwable exception) {
        return base.shouldRetry(exception);
    }

    @Override
    public Duration nextDelay(int retryCount) {
        return base.nextDelay(retryCount);
    }

    @Override
    public OptionalInt maxRetries() {
        return OptionalInt.of(maxRetries);
    }

    @Override
    public String toString() {
        return base + " with at most " + maxRetries + " retries";
    }
}
