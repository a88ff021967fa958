package dev.outbox.events;

/**
 * An event for the outbox that knows its aggregate: every instance published as a Spring application event inside a
 * transaction is written as an outbox record in that transaction, under the outbox's event type (by default the
 * class's simple name). A Java record with an {@code aggregateId} component implements it as it is.
 *
 * <pre>{@code
 * public record OrderShipped(String aggregateId, String carrier) implements AggregateEvent {
 * }
 * }</pre>
 */
public interface AggregateEvent {

    /** The id of the aggregate the event belongs to; records of one aggregate are processed in order. */
    String aggregateId();
}
