package dev.outbox.boot;

import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.PartitionListener;

/**
 * The meters of each outbox of the application, tagged {@code outbox=<name>} ({@code default} for the outbox of
 * {@code outbox.*}), so that every series of one meter has the same tag keys, as Prometheus requires. Defined when
 * Micrometer and {@code outbox-metrics} are on the class path; names no Micrometer type, so that the outboxes are
 * built without them.
 */
interface OutboxMeters {

    /** Counts and times the processing of the outbox {@code outbox}; the same listener for the same name. */
    OutboxListener listener(String outbox);

    /** Counts the partition changes of the outbox {@code outbox}; the same listener for the same name. */
    PartitionListener partitionListener(String outbox);

    /** Whether {@code listener} is one of the listeners above, which belong to one outbox each. */
    boolean isMeterListener(Object listener);

    /** Registers the gauges of the outbox {@code outbox} over its monitor. */
    void bindGauges(String outbox, OutboxMonitor monitor);
}
