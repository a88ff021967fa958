package dev.outbox.retry;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Decides whether a failed record is retried and how long it waits first.
 *
 * <p>The number of retries is bounded by {@code outbox.retry.max-retries} unless the policy sets its own
 * {@link #maxRetries()}: with {@code max-retries: 3} a record is handled at most four times (the first attempt and
 * three retries) before it becomes {@code FAILED}. Implementations must be thread-safe.
 */
public interface OutboxRetryPolicy {

    /** Whether a failure with this exception may be retried at all. Default: every exception. */
    default boolean shouldRetry(Throwable exception) {
        return true;
    }

    /**
     * The delay before retry number {@code retryCount} (1 for the first retry, after the first failed attempt).
     * Must not be negative.
     */
    Duration nextDelay(int retryCount);

    /** The most retries this policy allows; empty (the default) leaves it to {@code outbox.retry.max-retries}. */
    default OptionalInt maxRetries() {
        return OptionalInt.empty();
    }

    /** This policy, allowing at most {@code maxRetries} retries whatever {@code outbox.retry.max-retries} says. */
    default OutboxRetryPolicy withMaxRetries(int maxRetries) {
        return new BoundedRetryPolicy(this, maxRetries);
    }

    /** The same delay before every retry. */
    static OutboxRetryPolicy fixed(Duration delay) {
        return new FixedDelayRetryPolicy(delay);
    }

    /**
     * {@code initialDelay × multiplier^(retryCount − 1)}, capped at {@code maxDelay}: with 1 s, 60 s and 2.0 the
     * retries wait 1 s, 2 s, 4 s, … 32 s, 60 s, 60 s.
     */
    static OutboxRetryPolicy exponential(Duration initialDelay, Duration maxDelay, double multiplier) {
        return new ExponentialBackoffRetryPolicy(initialDelay, maxDelay, multiplier);
    }

    /** The delay of {@code base} plus a uniformly random extra of {@code 0..jitter}, to spread retries of many nodes. */
    static OutboxRetryPolicy jittered(OutboxRetryPolicy base, Duration jitter) {
        return new JitteredRetryPolicy(base, jitter, ThreadLocalRandom::current);
    }

    /** As {@link #jittered(OutboxRetryPolicy, Duration)} with a given source of randomness, for reproducible tests. */
    static OutboxRetryPolicy jittered(OutboxRetryPolicy base, Duration jitter, Random random) {
        return new JitteredRetryPolicy(base, jitter, () -> random);
    }
}
