package dev.outbox.benchmark.publish;

/** One message read back from a destination: its record id, aggregate and sequence, from the outbox headers. */
public record Delivered(String recordId, String aggregateId, long sequence) {
}
