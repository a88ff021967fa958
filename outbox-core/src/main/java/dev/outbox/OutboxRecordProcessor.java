package dev.outbox;

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
}
