package dev.outbox.spi;

import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * The open records of one partition as one read found them, for an operator looking at that partition.
 *
 * @param partition 0 to 255
 * @param readAt the time the not-yet-due records were judged by
 * @param newRecords NEW records
 * @param notYetDue of the NEW records, those whose {@code next_retry_at} is after {@code readAt}: waiting for a
 *     retry's back-off, a delayed delivery, or a deferral
 * @param deferred of the NEW records, those an instance without their handler put off and no attempt has run for
 *     since (their first deferral is recorded); whether the partition's owner now has the handler is not looked at
 * @param failed FAILED records
 * @param oldestNewCreatedAt creation time of the oldest NEW record; null when there is none
 * @param oldestFailedCreatedAt creation time of the oldest FAILED record; null when there is none
 * @since 0.1.0
 */
public record PartitionRecords(int partition, Instant readAt, long newRecords, long notYetDue, long deferred,
        long failed, @Nullable Instant oldestNewCreatedAt, @Nullable Instant oldestFailedCreatedAt) {

    public PartitionRecords {
        Objects.requireNonNull(readAt, "readAt");
    }
}
