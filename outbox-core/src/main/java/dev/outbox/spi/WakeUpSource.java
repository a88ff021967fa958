package dev.outbox.spi;

import java.util.Collection;

/**
 * Tells a processor that records may be due before its next poll: records committed in this JVM or by another
 * instance (a database notification), FAILED records an operator made due again. A wake-up only triggers a fetch; the
 * table stays the source of truth, so a missed wake-up delays records until the next poll and never loses or reorders
 * them. An {@code OutboxNode} starts its sources after its processor and closes them before it stops.
 */
public interface WakeUpSource extends AutoCloseable {

    /** A source that never wakes anyone: where a database has no notifications, say. */
    static WakeUpSource none() {
        return target -> { };
    }

    /** Starts telling {@code target}. */
    void start(Target target);

    /** Stops telling; default: nothing to stop. */
    @Override
    default void close() {
    }

    /** What a wake-up source tells: the processor. */
    interface Target {

        /** Look for due records now. */
        void wakeUp();

        /** Look for due records now if any of {@code partitions} is owned here. */
        void wakeUpFor(Collection<Integer> partitions);
    }
}
