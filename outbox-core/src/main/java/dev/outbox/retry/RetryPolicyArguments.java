package dev.outbox.retry;

import java.time.Duration;
import java.util.Objects;

final class RetryPolicyArguments {

    private RetryPolicyArguments() {
    }

    static Duration nonNegative(String name, Duration value) {
        Objects.requireNonNull(value, name + " must not be null");
        if (value.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0 but was " + value);
        }
        return value;
    }

    static void checkRetryCount(int retryCount) {
        if (retryCount < 1) {
            throw new IllegalArgumentException("retryCount must be >= 1 but was " + retryCount);
        }
    }
}
