package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import org.jspecify.annotations.Nullable;

/**
 * Tracing around the two ends of a record's life: its write, where the current trace context is captured and stored
 * with the record, and each handler call, which continues that context. {@code outbox-metrics} implements it with
 * Micrometer Observation, so that Spring Boot's tracing bridge produces the spans. The defaults do nothing.
 */
public interface OutboxObservation {

    OutboxObservation NOOP = new OutboxObservation() {
    };

    /**
     * Called when a record is saved, on the writer's thread inside its transaction.
     *
     * @return the trace context to store with the record (at most
     *     {@value OutboxRecord#MAX_TRACE_CONTEXT_LENGTH} characters), or null
     */
    default @Nullable String contextForWrite(OutboxRecord record) {
        return null;
    }

    /** Runs one handler call of {@code record}, e.g. inside an observation whose parent is the stored context. */
    default void observeProcessing(OutboxRecord record, HandlerCall call) throws Exception {
        call.run();
    }

    /**
     * Runs one {@link dev.outbox.publish.OutboxPublisher#publish} call of {@code record} and returns what ends its
     * observation. A publisher may only buffer the record there and send it in its
     * {@link dev.outbox.publish.OutboxPublisher#flush() flush()}: the engine ends the observation once the flush of the
     * record's burst returned, so that it covers the send too (not the wait for the broker's acknowledgement). The
     * default observes the call alone, as {@link #observeProcessing}.
     */
    default PublishEnd observePublish(OutboxRecord record, HandlerCall call) throws Exception {
        observeProcessing(record, call);
        return failure -> { };
    }

    /** Ends the observation of a publish once its burst was flushed. */
    @FunctionalInterface
    interface PublishEnd {
        /** @param flushFailure what the publisher's flush threw, or null */
        void flushed(@Nullable Throwable flushFailure);
    }

    /** A handler call, as the processor makes it. */
    @FunctionalInterface
    interface HandlerCall {
        void run() throws Exception;
    }
}
