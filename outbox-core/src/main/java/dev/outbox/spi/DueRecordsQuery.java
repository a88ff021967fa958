package dev.outbox.spi;

import dev.outbox.partition.OwnedPartitions;
import java.time.Instant;
import java.util.Objects;

/**
 * What {@link RecordStore#findDue(DueRecordsQuery)} looks for.
 *
 * @param partitions the partitions to look in; not empty
 * @param now records with {@code next_retry_at <= now} are due
 * @param limit the most records to return, at least 1
 * @param headOfAggregateOnly whether a pending earlier record holds back the later records of its aggregate
 */
public record DueRecordsQuery(OwnedPartitions partitions, Instant now, int limit, boolean headOfAggregateOnly) {

    public DueRecordsQuery {
        Objects.requireNonNull(partitions, "partitions");
        Objects.requireNonNull(now, "now");
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions must not be empty");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
    }
}
