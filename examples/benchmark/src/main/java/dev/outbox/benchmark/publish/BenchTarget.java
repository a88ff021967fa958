package dev.outbox.benchmark.publish;

import java.util.List;

/**
 * Where the publisher benchmark drains records to: a broker behind its publisher, or the no-op handler it is compared
 * with. Creates its destination when made, removes it on {@link #close()}.
 */
public interface BenchTarget extends AutoCloseable {

    /** {@code noop}, {@code kafka}, {@code rabbitmq}, {@code nats}. */
    String name();

    /** The Spring properties that point the application's publisher here; none for the no-op handler. */
    List<String> properties();

    /** Whether records are published (acknowledged by a broker) rather than handled by the no-op handler. */
    default boolean publishes() {
        return true;
    }

    /** Every message the destination holds, in its order; empty for the no-op handler. */
    List<Delivered> readBack(long expected);

    @Override
    void close();
}
