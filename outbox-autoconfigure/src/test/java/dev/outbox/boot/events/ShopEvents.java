package dev.outbox.boot.events;

import dev.outbox.events.AggregateEvent;
import dev.outbox.events.OutboxEvent;

/** The events of the events tests: how applications mark theirs for the outbox, and ways to get it wrong. */
final class ShopEvents {

    private ShopEvents() {
    }

    // README: annotated event
    @OutboxEvent(aggregateId = "orderId")
    record OrderPlaced(String orderId, int amount) {
    }
    // README: end

    // README: aggregate event
    record OrderPaid(String aggregateId, int amount) implements AggregateEvent {
    }
    // README: end

    /** Registered by the {@link Shipment} aggregate, published by Spring Data on {@code save}. */
    @OutboxEvent(aggregateId = "shipmentId", eventType = "shop.ShipmentSent")
    record ShipmentSent(String shipmentId, String carrier) {
    }

    /** Not for the outbox: only the application's own listeners get it. */
    record PageViewed(String page) {
    }

    @OutboxEvent(aggregateId = "customerId")
    record WrongExpression(String orderId) {
    }

    static final String TYPE_OF_256_CHARACTERS = "TypeTooLong-----------------------------------------------"
            + "------------------------------------------------------------------------------------------------"
            + "------------------------------------------------------------------------------------------------"
            + "------";

    @OutboxEvent(aggregateId = "orderId", eventType = TYPE_OF_256_CHARACTERS)
    record TypeTooLong(String orderId) {
    }
}
