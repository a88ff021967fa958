package dev.outbox.boot.acceptance;

import org.springframework.data.jpa.repository.JpaRepository;

public interface TestOrderRepository extends JpaRepository<TestOrder, String> {
}
