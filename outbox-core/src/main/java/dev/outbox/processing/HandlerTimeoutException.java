package dev.outbox.processing;

import java.time.Duration;

/**
 * The failure of an attempt whose handler ran past {@code outbox.processing.handler-timeout}: its thread was
 * interrupted, and what the handler threw then is the cause. The retry policy judges it like any other failure.
 */
public class HandlerTimeoutException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public HandlerTimeoutException(Duration timeout, Throwable cause) {
        super("the handler did not finish within " + timeout + " and was interrupted", cause);
    }
}
