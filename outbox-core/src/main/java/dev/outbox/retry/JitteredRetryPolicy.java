package dev.outbox.retry;

import dev.outbox.internal.Checks;
import java.time.Duration;
import java.util.Objects;
import java.util.Random;
import java.util.function.Supplier;

final class JitteredRetryPolicy implements OutboxRetryPolicy {

    private final OutboxRetryPolicy base;
    private final Duration jitter;
    private final Supplier<? extends Random> random;

    JitteredRetryPolicy(OutboxRetryPolicy base, Duration jitter, Supplier<? extends Random> random) {
        this.base = Objects.requireNonNull(base, "base must not be null");
        this.jitter = Checks.notNegative("jitter", jitter);
        this.random = random;
    }

    @Override
    public boolean shouldRetry(Throwable exception) {
        return base.shouldRetry(exception);
    }

    @Override
    public Duration nextDelay(int retryCount) {
        Duration delay = base.nextDelay(retryCount);
        long jitterMillis = jitter.toMillis();
        if (jitterMillis == 0) {
            return delay;
        }
        return delay.plusMillis(random.get().nextLong(jitterMillis + 1));
    }

    @Override
    public String toString() {
        return "jittered(" + base + ", jitter=" + jitter + ")";
    }
}
