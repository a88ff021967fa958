package dev.outbox.example.kotlin

/** Written when an order is placed; the outbox names it by its simple class name, "OrderPlaced". */
data class OrderPlaced(val orderId: String, val customer: String, val amountCents: Long)

/** Written when an order ships; a parcel handed over at the counter has no carrier. */
data class OrderShipped(val orderId: String, val carrier: String?)
