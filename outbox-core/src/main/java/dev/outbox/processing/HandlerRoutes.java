package dev.outbox.processing;

import dev.outbox.OutboxRecord;

/**
 * Finds the {@link HandlerRoute} of each record: the engine asks once per record, before the handler runs. Typed
 * handlers ({@link dev.outbox.handler.OutboxHandlers}) route by the record's handler id; a single
 * {@link dev.outbox.OutboxRecordProcessor} is one route for every record.
 */
@FunctionalInterface
public interface HandlerRoutes {

    /** The route of {@code record}; never null. A record nobody can handle gets a route whose handler says why. */
    HandlerRoute routeFor(OutboxRecord record);
}
