package dev.outbox.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The NEW records of one partition addressed to one handler, as counted by
 * {@link RecordStatistics#pendingByPartitionAndHandler()}.
 *
 * @param partition 0..255
 * @param handlerId the handler they are addressed to, or null for records addressed to none
 * @param pending how many NEW records there are (retries and deferred records waiting for their time included)
 * @param oldestCreatedAt creation time of the oldest of them
 */
public record PartitionBacklog(int partition, @Nullable String handlerId, long pending, Instant oldestCreatedAt) {
    public PartitionBacklog {
        Objects.requireNonNull(oldestCreatedAt, "oldestCreatedAt");
    }
}
