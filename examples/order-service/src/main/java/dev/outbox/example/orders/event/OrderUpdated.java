package dev.outbox.example.orders.event;

import java.math.BigDecimal;

/** The amount of an order changed from {@code previousAmount} to {@code amount}. */
public record OrderUpdated(String orderId, BigDecimal previousAmount, BigDecimal amount) implements OrderEvent {
}
