package dev.outbox.example.orders.handling;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.example.orders.event.OrderEvent;
import java.time.Clock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;
import tools.jackson.databind.json.JsonMapper;

/**
 * Handles the order events written to the outbox. A real service would publish them to a broker; this one logs each
 * record and stores it in {@code handled_event}, which {@code GET /orders/{id}/events} shows.
 *
 * <p>Delivery is at least once, so the store is idempotent: the outbox record id is the primary key and a record that
 * is delivered again is not stored again. A record whose event type is unknown or whose payload cannot be read fails,
 * and the outbox retries it according to {@code outbox.retry.*}.
 */
@Component
public class OrderEventProcessor implements OutboxRecordProcessor {

    private static final Logger log = LoggerFactory.getLogger(OrderEventProcessor.class);

    private final JsonMapper jsonMapper;
    private final HandledEventStore handledEvents;
    private final Clock clock;

    public OrderEventProcessor(JsonMapper jsonMapper, HandledEventStore handledEvents, Clock clock) {
        this.jsonMapper = jsonMapper;
        this.handledEvents = handledEvents;
        this.clock = clock;
    }

    @Override
    public void process(OutboxRecord record) {
        Class<? extends OrderEvent> type = OrderEvent.typeOf(record.getEventType())
                .orElseThrow(() -> new IllegalArgumentException("Unknown event type '" + record.getEventType()
                        + "' in outbox record " + record.getId()));
        OrderEvent event = jsonMapper.readValue(record.getPayload(), type);
        log.info("Handling {} for order {} (sequence {}, attempt {}): {}", record.getEventType(),
                record.getAggregateId(), record.getSequence(), record.getRetryCount() + 1, event);
        if (!handledEvents.storeIfAbsent(record, clock.instant())) {
            log.info("Outbox record {} was handled before; redelivery ignored", record.getId());
        }
    }
}
