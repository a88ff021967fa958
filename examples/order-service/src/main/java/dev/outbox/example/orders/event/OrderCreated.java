package dev.outbox.example.orders.event;

import java.math.BigDecimal;

/** An order was placed. */
public record OrderCreated(String orderId, String customer, BigDecimal amount) implements OrderEvent {
}
