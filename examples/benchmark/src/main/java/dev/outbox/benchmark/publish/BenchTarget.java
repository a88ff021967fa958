package dev.outbox.benchmark.publish;

import java.util.List;
import org.jspecify.annotations.Nullable;

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

    /** The broker's own client publishing the same messages, to compare the publisher with; none for the no-op. */
    default @Nullable PlainClientReference plainClientReference() {
        return null;
    }

    /** Every message the destination holds, in its order; empty for the no-op handler. */
    List<Delivered> readBack(long expected);

    @Override
    void close();
}
