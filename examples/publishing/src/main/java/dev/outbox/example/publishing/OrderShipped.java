package dev.outbox.example.publishing;

/** An order was shipped. */
public record OrderShipped(String orderId) {
}
