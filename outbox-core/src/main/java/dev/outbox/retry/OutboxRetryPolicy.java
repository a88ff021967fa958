package dev.outbox.retry;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.Random;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Decides whether a failed record is retried, how long it waits first, and how many retries it gets.
 *
 * <p>The policy is the only source of the number of retries: its own {@link #maxRetries()}, else the bound of the
 * processor's default policy, else {@value #DEFAULT_MAX_RETRIES}. With three, a record is handled at most four times
 * (the first attempt and three retries) before it becomes {@code FAILED}. The Spring Boot starter bounds the default
 * policy by {@code outbox.retry.max-retries}. Implementations must be thread-safe.
 */
public interface OutboxRetryPolicy {

    /** Retries after the first attempt when no policy sets a bound ({@code outbox.retry.max-retries}). */
    int DEFAULT_MAX_RETRIES = 3;
    /** First delay of {@link #defaults()} ({@code outbox.retry.exponential.initial-delay}). */
    Duration DEFAULT_INITIAL_DELAY = Duration.ofSeconds(2);
    /** Largest delay of {@link #defaults()} ({@code outbox.retry.exponential.max-delay}). */
    Duration DEFAULT_MAX_DELAY = Duration.ofMinutes(1);
    /** Growth of the delays of {@link #defaults()} ({@code outbox.retry.exponential.multiplier}). */
    double DEFAULT_MULTIPLIER = 2.0;

    /**
     * The policy when none is configured: exponential from {@link #DEFAULT_INITIAL_DELAY}, times
     * {@link #DEFAULT_MULTIPLIER}, up to {@link #DEFAULT_MAX_DELAY}, at most {@link #DEFAULT_MAX_RETRIES} retries.
     */
    static OutboxRetryPolicy defaults() {
        return exponential(DEFAULT_INITIAL_DELAY, DEFAULT_MAX_DELAY, DEFAULT_MULTIPLIER)
                .withMaxRetries(DEFAULT_MAX_RETRIES);
    }

    /** Whether a failure with this exception may be retried at all. Default: every exception. */
    default boolean shouldRetry(Throwable exception) {
        return true;
    }

    /**
     * The delay before retry number {@code retryCount} (1 for the first retry, after the first failed attempt).
     * Must not be negative.
     */
    Duration nextDelay(int retryCount);

    /** The most retries this policy allows; empty (the default) leaves it to the processor's default policy. */
    default OptionalInt maxRetries() {
        return OptionalInt.empty();
    }

    /** This policy, allowing at most {@code maxRetries} retries whatever the default policy says. */
    default OutboxRetryPolicy withMaxRetries(int maxRetries) {
        return new BoundedRetryPolicy(this, maxRetries);
    }

    /** This policy, allowing at most {@code maxRetries} retries unless it has a bound of its own. */
    default OutboxRetryPolicy withDefaultMaxRetries(int maxRetries) {
        return maxRetries().isPresent() ? this : withMaxRetries(maxRetries);
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
