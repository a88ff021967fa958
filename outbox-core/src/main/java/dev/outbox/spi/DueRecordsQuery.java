package dev.outbox.spi;

import dev.outbox.partition.OwnedPartitions;
import java.time.Instant;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * What {@link RecordStore#findDue(DueRecordsQuery)} looks for.
 *
 * @param partitions the partitions to look in; not empty
 * @param now records with {@code next_retry_at <= now} are due
 * @param limit the most records to return, at least 1
 * @param headOfAggregateOnly whether a pending earlier record holds back the later records of its aggregate
 * @param setAside handler ids whose records the fetch leaves out ({@code ""} for records addressed to no handler):
 *     those this instance defers, so that they take none of the batch's places. A lane's records share one handler
 *     id, so leaving all of them out keeps every lane's order. Since 0.1.0
 * @param fromSequence null, or the lowest {@link dev.outbox.OutboxRecord#getSequence() sequence} to read: records
 *     below it are left out, so that the read starts there in the sequence index instead of walking the entries of
 *     records finished below it (see {@code FetchFloor} in the processor). Under {@code headOfAggregateOnly} a record
 *     below it that is {@code NEW} (due or not) or {@code FAILED} holds back the later records of its lane, since the
 *     read does not return it to go first. A store may ignore it and read from the start. Since 0.1.0
 * @param toSequence null, or the sequence the read stops before: records at or above it are left out, so that a
 *     read of the records below the floor walks one stretch of the index at a time. A store may ignore it. Since 0.1.0
 */
public record DueRecordsQuery(OwnedPartitions partitions, Instant now, int limit, boolean headOfAggregateOnly,
        Set<String> setAside, @Nullable Long fromSequence, @Nullable Long toSequence) {

    public DueRecordsQuery {
        Objects.requireNonNull(partitions, "partitions");
        Objects.requireNonNull(now, "now");
        if (partitions.isEmpty()) {
            throw new IllegalArgumentException("partitions must not be empty");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be >= 1 but was " + limit);
        }
        if (fromSequence != null && toSequence != null && toSequence <= fromSequence) {
            throw new IllegalArgumentException("toSequence must be greater than fromSequence (" + fromSequence
                    + ") but was " + toSequence);
        }
        setAside = Set.copyOf(setAside);
    }

    /** A query from {@code fromSequence} (null: the first record) on. */
    public DueRecordsQuery(OwnedPartitions partitions, Instant now, int limit, boolean headOfAggregateOnly,
            Set<String> setAside, @Nullable Long fromSequence) {
        this(partitions, now, limit, headOfAggregateOnly, setAside, fromSequence, null);
    }

    /** A query from the first record on. */
    public DueRecordsQuery(OwnedPartitions partitions, Instant now, int limit, boolean headOfAggregateOnly,
            Set<String> setAside) {
        this(partitions, now, limit, headOfAggregateOnly, setAside, null, null);
    }

    /** A query that sets nothing aside. */
    public DueRecordsQuery(OwnedPartitions partitions, Instant now, int limit, boolean headOfAggregateOnly) {
        this(partitions, now, limit, headOfAggregateOnly, Set.of(), null, null);
    }
}
