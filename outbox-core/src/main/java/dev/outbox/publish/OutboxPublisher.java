package dev.outbox.publish;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Delivers records to a message broker. A record counts as published only when the broker has durably accepted it:
 * the stage {@link #publish} returns completes then, and not before.
 *
 * <p>The engine hands a publisher many records at once and waits for their acknowledgements together, with at most
 * one record of each aggregate in flight: an aggregate's next record is sent only after the broker acknowledged the
 * one before. That is what keeps the first occurrence of every record in its aggregate's order on the broker, whatever
 * fails in between. Register a publisher with {@link PublisherRegistration}; it is a handler with its own id, state,
 * retries and fallback.
 */
public interface OutboxPublisher {

    /** The value of a {@link #publish} stage whose record the broker already held; see {@link #publish}. */
    Object DUPLICATE = new Object() {
        @Override
        public String toString() {
            return "DUPLICATE";
        }
    };

    /** How long the engine waits for an acknowledgement unless the publisher says otherwise. */
    Duration DEFAULT_ACKNOWLEDGEMENT_TIMEOUT = Duration.ofSeconds(30);

    /**
     * Sends {@code record} without waiting for the broker.
     *
     * @return a stage that completes normally once the broker has durably accepted the record, and exceptionally
     *     (preferably with a {@link PublishException}) when it refused it or the outcome is unknown. Complete it with
     *     {@link #DUPLICATE} when the broker recognised the record as one it already holds and dropped this copy
     *     (NATS JetStream within its duplicate window): the record counts as published, and as a duplicate
     * @throws RuntimeException when the record cannot even be sent (no destination, say): the same as a stage that
     *     failed at once
     */
    CompletionStage<?> publish(OutboxRecord record);

    /**
     * Called after a burst of {@link #publish} calls, on the thread that made them: a publisher that buffers messages
     * sends them now. Must not wait for acknowledgements. The default does nothing.
     */
    default void flush() {
    }

    /**
     * How long the engine waits for the acknowledgement of one record before it counts the attempt as failed with a
     * retryable {@link PublishException.Reason#TIMEOUT}; the broker may still have taken it, so a retry may duplicate
     * it. Keep it above the client's own delivery timeout, so that the client's verdict arrives first.
     */
    default Duration acknowledgementTimeout() {
        return DEFAULT_ACKNOWLEDGEMENT_TIMEOUT;
    }

    /**
     * This publisher as a one-record handler that publishes, flushes (a burst of one) and waits for the
     * acknowledgement: what runs a record outside the batch path.
     */
    default OutboxRecordProcessor asProcessor() {
        return record -> {
            Duration timeout = acknowledgementTimeout();
            try {
                CompletionStage<?> stage = publish(record);
                flush();
                stage.toCompletableFuture().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw e.getCause() instanceof Exception cause ? cause : e;
            } catch (TimeoutException e) {
                throw PublishException.timeout(record, timeout);
            }
        };
    }
}
