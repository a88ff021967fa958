package dev.outbox;

import java.time.Duration;
import java.util.Objects;

/**
 * Thrown by a handler that cannot handle a record <em>yet</em> (a downstream system asks to come back later, a rate
 * limit): the record is handled again after {@link #delay()} and the attempt is not counted against
 * {@code max-retries}. Under stop-on-first-failure the later records of its aggregate wait meanwhile, so order holds.
 */
public class RetryLaterException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Duration delay;

    /**
     * @param delay how long to wait before the next attempt; not negative
     */
    public RetryLaterException(Duration delay, String reason) {
        super(reason);
        Objects.requireNonNull(delay, "delay");
        if (delay.isNegative()) {
            throw new IllegalArgumentException("delay must not be negative but was " + delay);
        }
        this.delay = delay;
    }

    public Duration delay() {
        return delay;
    }
}
