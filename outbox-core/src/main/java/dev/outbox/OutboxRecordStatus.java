package dev.outbox;

/** Lifecycle of an outbox record. */
public enum OutboxRecordStatus {
    /** Waiting to be processed, either for the first time or for a scheduled retry ({@code next_retry_at}). */
    NEW,
    /** Processed successfully. */
    COMPLETED,
    /** Gave up: retries exhausted or the retry policy refused. The last error is stored on the record. */
    FAILED,
    /** A FAILED record an operator chose to skip: it no longer holds back the later records of its aggregate. */
    SKIPPED
}
