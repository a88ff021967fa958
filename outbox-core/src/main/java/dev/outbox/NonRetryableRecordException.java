package dev.outbox;

/**
 * Thrown by a handler for a record that can never succeed (a payload it cannot read, an event the receiver refuses for
 * good): the record becomes FAILED at once, whatever the retry policy and {@code max-retries}, with this message as its
 * error. Under stop-on-first-failure the later records of its aggregate then wait for an operator.
 */
public class NonRetryableRecordException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public NonRetryableRecordException(String message) {
        super(message);
    }

    public NonRetryableRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
