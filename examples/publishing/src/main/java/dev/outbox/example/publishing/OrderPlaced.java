package dev.outbox.example.publishing;

/** An order was placed. */
public record OrderPlaced(String orderId, long amountCents) {
}
