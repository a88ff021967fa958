package dev.outbox.spi;

import java.time.Instant;
import java.util.Objects;

/**
 * The NEW records of one partition, as counted by {@link RecordStatistics#pendingByPartition()}.
 *
 * @param partition 0..255
 * @param pending how many NEW records it has (retries waiting for their time included)
 * @param oldestCreatedAt creation time of the oldest of them
 */
public record PartitionBacklog(int partition, long pending, Instant oldestCreatedAt) {
    public PartitionBacklog {
        Objects.requireNonNull(oldestCreatedAt, "oldestCreatedAt");
    }
}
