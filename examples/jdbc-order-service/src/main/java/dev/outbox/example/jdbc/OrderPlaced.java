package dev.outbox.example.jdbc;

/** The event of a placed order, written to the outbox with the order row. */
public record OrderPlaced(String orderId, String customer, long amountCents) {
}
