package dev.outbox.boot.quickstart;

/** The event of the README's JPA example, written as JSON by the application's mapper. */
public record OrderPlaced(String orderId, String customer, long amountCents) {
}
