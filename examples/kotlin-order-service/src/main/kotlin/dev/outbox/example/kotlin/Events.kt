package dev.outbox.example.kotlin

import dev.outbox.events.OutboxEvent

/** Written when an order is placed; the outbox names it by its simple class name, "OrderPlaced". */
data class OrderPlaced(val orderId: String, val customer: String, val amountCents: Long)

/** Written when an order ships; a parcel handed over at the counter has no carrier. */
data class OrderShipped(val orderId: String, val carrier: String?)

/**
 * Published with Spring's ApplicationEventPublisher, not through the outbox's API: the annotation makes the outbox
 * write it in the publisher's transaction, with the order id (a SpEL expression on the event) as aggregate id.
 */
@OutboxEvent(aggregateId = "orderId")
data class OrderCancelled(val orderId: String, val reason: String)
