package dev.outbox.spi;

import org.jspecify.annotations.Nullable;

/**
 * One row of the partition table as read.
 *
 * @param partition the partition, {@code 0..255}
 * @param owner the owning instance, or null when free
 * @param epoch increases every time the partition is claimed
 */
public record PartitionState(int partition, @Nullable String owner, long epoch) {
}
