package dev.outbox.example.orders.handling;

import java.time.Instant;
import org.jspecify.annotations.Nullable;

/**
 * One row of {@code handled_event}: an outbox record the processor has handled.
 *
 * @param recordId the outbox record id, the primary key: a redelivered record is stored once
 * @param aggregateId the order id
 * @param eventType the simple class name of the event
 * @param payload the event as JSON, as it was stored in the outbox
 * @param sequence the outbox sequence number, the order in which the events of one order were written
 * @param handledAt when the record was first handled
 */
public record HandledEvent(String recordId, String aggregateId, String eventType, String payload,
        @Nullable Long sequence, Instant handledAt) {
}
