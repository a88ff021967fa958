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

    /** A handler call, as the processor makes it. */
    @FunctionalInterface
    interface HandlerCall {
        void run() throws Exception;
    }
}
