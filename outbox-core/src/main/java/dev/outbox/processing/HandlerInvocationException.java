package dev.outbox.processing;

import java.time.Duration;

/**
 * The library could not call a handler: reflection refused the call, say. The handler never ran, so this is not a
 * failure of the record: the attempt does not count, the record waits {@link #RETRY_DELAY} and is tried again (its
 * aggregate waits with it), and the failure is logged at ERROR. Deployment mistakes that make a handler uncallable
 * are found at startup; this covers what only shows at the call.
 */
public class HandlerInvocationException extends RuntimeException {

    /** How long a record whose handler could not be called waits before the next try. */
    public static final Duration RETRY_DELAY = Duration.ofMinutes(1);

    private static final long serialVersionUID = 1L;

    /**
     * @param handler what could not be called, e.g. {@code @OutboxHandler method com.example.Mailer.send}
     * @param cause why the call machinery refused
     */
    public HandlerInvocationException(String handler, Throwable cause) {
        super("the outbox could not call " + handler + ": " + cause, cause);
    }
}
