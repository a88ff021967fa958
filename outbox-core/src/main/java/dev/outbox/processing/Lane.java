package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import org.jspecify.annotations.Nullable;

/**
 * What is processed in order: the records of one aggregate for one handler. Handlers subscribed to the same event
 * type have lanes of their own, so one handler's failure neither blocks nor re-runs another.
 */
record Lane(String aggregateId, @Nullable String handlerId) {

    static Lane of(OutboxRecord record) {
        return new Lane(record.getAggregateId(), record.getHandlerId());
    }

    @Override
    public String toString() {
        return handlerId == null ? aggregateId : aggregateId + " (handler " + handlerId + ")";
    }
}
