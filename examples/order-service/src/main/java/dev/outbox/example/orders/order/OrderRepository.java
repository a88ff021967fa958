package dev.outbox.example.orders.order;

import org.springframework.data.jpa.repository.JpaRepository;

/** Spring Data repository of {@link Order}s. */
public interface OrderRepository extends JpaRepository<Order, String> {
}
