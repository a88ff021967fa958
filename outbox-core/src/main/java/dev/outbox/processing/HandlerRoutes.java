package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import java.util.Set;

/**
 * Finds the {@link HandlerRoute} of each record: the engine asks once per record, before the handler runs. Typed
 * handlers ({@link dev.outbox.handler.OutboxHandlers}) route by the record's handler id; a single
 * {@link dev.outbox.OutboxRecordProcessor} is one route for every record.
 */
@FunctionalInterface
public interface HandlerRoutes {

    /** The route of {@code record}; never null. A record nobody can handle gets a route whose handler says why. */
    HandlerRoute routeFor(OutboxRecord record);

    /**
     * The ids of the handlers whose routes are {@linkplain HandlerRoute#transactional() transactional}, for the
     * processor to refuse them at build time when it has no {@link dev.outbox.spi.RecordTransactions}. Routes that
     * can return a transactional route must say so here or in {@link #anyTransactional()}. Default: none.
     */
    default Set<String> transactionalHandlerIds() {
        return Set.of();
    }

    /** Whether a route may be transactional; default: whether {@link #transactionalHandlerIds()} names any. */
    default boolean anyTransactional() {
        return !transactionalHandlerIds().isEmpty();
    }
}
