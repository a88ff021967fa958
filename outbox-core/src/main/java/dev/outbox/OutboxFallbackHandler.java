package dev.outbox;

/**
 * Takes a record whose handler failed for good: retries exhausted, or a failure that is not retryable (a payload that
 * cannot be read among them, which is why it gets the raw record). Returning normally stores the record as COMPLETED
 * and lets the later records of the aggregate go on; throwing leaves it FAILED, with both errors stored.
 */
@FunctionalInterface
public interface OutboxFallbackHandler {

    void recover(OutboxRecord record, Throwable failure) throws Exception;
}
