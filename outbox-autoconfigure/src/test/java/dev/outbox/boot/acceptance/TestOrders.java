package dev.outbox.boot.acceptance;

/** Writes a row of the {@code test_order} table, the business change of the acceptance tests. */
@FunctionalInterface
public interface TestOrders {

    void save(String id, String status, int amount);
}
