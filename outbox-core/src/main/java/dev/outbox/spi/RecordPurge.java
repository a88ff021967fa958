package dev.outbox.spi;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import java.time.Instant;

/** Deletes finished records in bounded batches, so that a purge never holds locks on many rows at once. */
@FunctionalInterface
public interface RecordPurge {

    /**
     * Deletes at most {@code limit} records of {@code partitions} with the given status that were created before
     * {@code createdBefore}, oldest first, in one statement.
     *
     * @param status a finished status ({@link OutboxRecordStatus#COMPLETED}, {@link OutboxRecordStatus#SKIPPED} or
     *     {@link OutboxRecordStatus#FAILED}); NEW records are never purged
     * @return how many it deleted
     */
    int purge(OwnedPartitions partitions, OutboxRecordStatus status, Instant createdBefore, int limit);
}
