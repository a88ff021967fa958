package dev.outbox.example.orders.web;

import java.math.BigDecimal;
import org.jspecify.annotations.Nullable;

/** Body of {@code POST /orders}. Missing fields are reported by the service with HTTP 400. */
public record CreateOrderRequest(@Nullable String customer, @Nullable BigDecimal amount) {
}
