package dev.outbox.example.orders.web;

import dev.outbox.example.orders.order.Order;
import dev.outbox.example.orders.order.OrderStatus;
import java.math.BigDecimal;
import java.time.Instant;

/** An order as the API shows it. */
public record OrderResponse(String id, String customer, BigDecimal amount, OrderStatus status, long version,
        Instant createdAt, Instant updatedAt) {

    static OrderResponse of(Order order) {
        return new OrderResponse(order.getId(), order.getCustomer(), order.getAmount(), order.getStatus(),
                order.getVersion(), order.getCreatedAt(), order.getUpdatedAt());
    }
}
