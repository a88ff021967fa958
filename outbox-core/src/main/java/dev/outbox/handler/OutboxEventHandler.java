package dev.outbox.handler;

/**
 * Handles one event type, read into {@code T}. Called on an outbox worker thread, outside any transaction, in the
 * aggregate's order. Delivery is at least once: use {@link RecordMetadata#getId()}, stable per event and handler, to
 * make the handling idempotent. Throwing counts as a failure that the handler's retry policy judges.
 *
 * @param <T> the payload type
 */
@FunctionalInterface
public interface OutboxEventHandler<T> {

    void handle(T event, RecordMetadata metadata) throws Exception;
}
