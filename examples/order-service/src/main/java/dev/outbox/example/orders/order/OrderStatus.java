package dev.outbox.example.orders.order;

/** Lifecycle of an order. A cancelled order accepts no further change. */
public enum OrderStatus {
    CREATED,
    UPDATED,
    CANCELLED
}
