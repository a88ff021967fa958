package dev.outbox.spi;

/** State of a registered instance. */
public enum InstanceStatus {
    /** Running: takes part in the partition assignment. */
    ACTIVE,
    /** Stopping: finishes its records and hands its partitions over; gets no new ones. */
    SHUTTING_DOWN
}
