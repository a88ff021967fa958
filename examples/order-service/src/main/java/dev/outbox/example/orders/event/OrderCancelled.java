package dev.outbox.example.orders.event;

import java.math.BigDecimal;

/** An order was cancelled; {@code amount} is what it was worth when cancelled. */
public record OrderCancelled(String orderId, String customer, BigDecimal amount) implements OrderEvent {
}
