package dev.outbox.spi;

import java.util.Map;

/**
 * Context that travels with a record from its writer to its handler: captured as headers when the record is written
 * (a tenant, a correlation id from the writer's MDC, say), and set again around the handler call, then cleared. See
 * {@link dev.outbox.context.MdcRecordContext}; {@link dev.outbox.context.RecordContexts} puts them on the write path
 * and around the handler call.
 */
public interface RecordContext {

    /** The headers to store with a record written now; empty when there is nothing to carry. */
    Map<String, String> capture();

    /**
     * Sets the context that {@code headers} carry, for the handler call that follows.
     *
     * @return what undoes it once the call has returned or thrown
     */
    Scope restore(Map<String, String> headers);

    /** Undoes a {@link #restore(Map)}. */
    @FunctionalInterface
    interface Scope extends AutoCloseable {

        /** Nothing to undo. */
        Scope NONE = () -> {
        };

        @Override
        void close();
    }
}
