package dev.outbox.testing;

import dev.outbox.partition.PartitionHasher;

/** Aggregate ids for tests that need records in a given partition. */
public final class AggregateIds {

    private AggregateIds() {
    }

    /** The first of {@code prefix-0}, {@code prefix-1}, … that hashes to {@code partition} (0..255). */
    public static String inPartition(int partition, String prefix) {
        if (partition < 0 || partition >= PartitionHasher.PARTITION_COUNT) {
            throw new IllegalArgumentException("partition must be between 0 and "
                    + (PartitionHasher.PARTITION_COUNT - 1) + " but was " + partition);
        }
        for (int i = 0; ; i++) {
            String candidate = prefix + "-" + i;
            if (PartitionHasher.partitionOf(candidate) == partition) {
                return candidate;
            }
        }
    }
}
