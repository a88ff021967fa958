package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.spi.OutboxObservation;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One call of a handler as every worker makes it: through the observation, within the handler timeout, and with the
 * worker's interrupt flag cleared afterwards unless a stop gave up on the work (see {@link LaneWorker}).
 */
final class HandlerCalls {

    private static final Logger log = LoggerFactory.getLogger(HandlerCalls.class);

    private final OutboxObservation observation;
    private final @Nullable HandlerTimeouts timeouts;

    HandlerCalls(OutboxObservation observation, @Nullable HandlerTimeouts timeouts) {
        this.observation = observation;
        this.timeouts = timeouts;
    }

    /**
     * Calls the handler; returns what it threw (an Error included), or null. A call past the handler timeout is
     * interrupted and fails with {@link HandlerTimeoutException}.
     */
    @Nullable Throwable call(OutboxRecord record, OutboxRecordProcessor handler, LaneWork work) {
        HandlerTimeouts.Deadline deadline = timeouts == null ? null : timeouts.start(Thread.currentThread());
        Throwable failure = null;
        try {
            observation.observeProcessing(record, () -> handler.process(record));
        } catch (Throwable e) {
            failure = e;
        }
        boolean timedOut = deadline != null && deadline.finish();
        if (work.isAbandoned()) {
            Thread.currentThread().interrupt();
            return failure;
        }
        if (Thread.interrupted() && !timedOut) {
            log.debug("Outbox record {}: the handler left its thread interrupted; cleared", record.getId());
        }
        if (timedOut && failure != null) {
            return new HandlerTimeoutException(timeouts.timeout(), failure);
        }
        return failure;
    }
}
