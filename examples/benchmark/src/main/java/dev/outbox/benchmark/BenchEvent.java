package dev.outbox.benchmark;

/**
 * The event every benchmark record carries, serialized by the library's {@code PayloadSerializer} (the application's
 * Jackson mapper): about 90 bytes of JSON.
 *
 * @param aggregateId the aggregate it belongs to
 * @param number its position among the aggregate's events
 * @param amountCents some payload
 * @param currency some payload
 */
public record BenchEvent(String aggregateId, int number, long amountCents, String currency) {

    /** The {@code index}-th record of a run: aggregate {@code index % aggregates}, round-robin. */
    static BenchEvent of(long index, int aggregates) {
        String aggregateId = aggregateId(index, aggregates);
        return new BenchEvent(aggregateId, (int) (index / aggregates), (index * 7919L) % 1_000_000L, "EUR");
    }

    static String aggregateId(long index, int aggregates) {
        return "aggregate-" + (index % aggregates);
    }
}
