package dev.outbox;

import java.util.List;

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
