package dev.outbox.benchmark;

/**
 * The transactional benchmark's event: written as JSON by {@code Outbox.schedule}, read back into this type by the
 * typed handlers (public, as the application's JSON mapper needs it).
 *
 * @param orderId the aggregate
 * @param number the record's number in its backlog
 */
public record ProjectedOrder(String orderId, int number) {
}
