package dev.outbox.example.orders.web;

import java.math.BigDecimal;
import org.jspecify.annotations.Nullable;

/**
 * Body of {@code PUT /orders/{id}}.
 *
 * @param amount the new amount
 * @param version optional: the version the client read; the update is refused with HTTP 409 when the order has
 *     changed since
 */
public record UpdateOrderRequest(@Nullable BigDecimal amount, @Nullable Long version) {
}
