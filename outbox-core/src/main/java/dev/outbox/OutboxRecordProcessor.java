package dev.outbox;

import dev.outbox.retry.OutboxRetryPolicy;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Handles outbox records: publish them to a broker, call another service, update a read model.
 *
 * <p>Called on an outbox worker thread, outside any transaction, for one record at a time per aggregate and in the
 * aggregate's order. Delivery is at least once: after a crash a record may be handled again, so make the handling
 * idempotent (the record id is stable). Throwing any exception counts as a failure that the retry policy judges.
 */
@FunctionalInterface
public interface OutboxRecordProcessor {

    void process(OutboxRecord record) throws Exception;

    /**
     * The retry policy for this record's failures, for processors that route records to handlers with policies of
     * their own. Null (the default): the policy the processing engine was configured with.
     */
    default @Nullable OutboxRetryPolicy retryPolicyFor(OutboxRecord record) {
        return null;
    }

    /**
     * Called once when a record has failed for good (its retries are exhausted, or the failure is not retryable),
     * before it is stored as FAILED. Return true when the fallback dealt with the record: it is then stored as
     * COMPLETED and the later records of its aggregate go on. False (the default) leaves it FAILED; so does a throw,
     * whose error is stored beside the original one.
     */
    default boolean fallback(OutboxRecord record, Throwable failure) throws Exception {
        return false;
    }

    /**
     * One processor that calls each of {@code processors} in order; the record fails as soon as one of them throws, and
     * a retry calls all of them again.
     */
    static OutboxRecordProcessor allOf(List<? extends OutboxRecordProcessor> processors) {
        List<OutboxRecordProcessor> copy = List.copyOf(processors);
        if (copy.isEmpty()) {
            throw new IllegalArgumentException("processors must not be empty");
        }
        if (copy.size() == 1) {
            return copy.get(0);
        }
        return record -> {
            for (OutboxRecordProcessor processor : copy) {
                processor.process(record);
            }
        };
    }
}
