package dev.outbox.boot.quickstart;

import org.springframework.data.jpa.repository.JpaRepository;

/** The Spring Data repository of the README's JPA example. */
public interface PurchaseOrders extends JpaRepository<PurchaseOrder, String> {
}
