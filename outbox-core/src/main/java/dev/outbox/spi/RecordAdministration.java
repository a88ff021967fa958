package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * What an operator does with FAILED records. Each method is one conditional statement on rows that are FAILED, which
 * no instance is processing, so it is safe while the cluster runs: a record reset to NEW is simply fetched by its
 * partition's owner.
 */
public interface RecordAdministration {

    /** FAILED records matching the filter, oldest first, at most {@code limit}. */
    List<OutboxRecord> findFailed(FailedRecordFilter filter, int limit);

    /**
     * {@link #findFailed}, with the FAILED rows that cannot be read as records (an unreadable row the processor
     * failed, see {@link UnreadableRow}) among them, at most {@code limit} rows in all. The default reports none.
     *
     * @since 0.1.0
     */
    default FetchedRows findFailedRows(FailedRecordFilter filter, int limit) {
        return FetchedRows.of(findFailed(filter, limit));
    }

    /**
     * Makes a FAILED record NEW again, due at {@code now}, with its retry count reset and its first deferral cleared (a
     * record that waited too long for its handler gets a fresh {@code outbox.processing.max-deferral}); false unless
     * it was FAILED.
     */
    boolean retryFailed(String id, Instant now);

    /** {@link #retryFailed} for every FAILED record matching the filter; returns how many. */
    int retryAllFailed(FailedRecordFilter filter, Instant now);

    /** Marks a FAILED record SKIPPED, so the later records of its aggregate go on; false unless it was FAILED. */
    boolean skipFailed(String id, Instant now);

    /** Deletes a FAILED or SKIPPED record; false when there was none. */
    boolean deleteFailed(String id);

    /**
     * A page of FAILED rows matching the filter, readable or not, in {@code order}, at most {@code limit}: those after
     * the row of sequence {@code afterSequence} in that order (from the first when it is null), and none past the row
     * of sequence {@code throughSequence} (no bound when it is null), so that what a filtered page examines is
     * bounded however few records its filter matches. A database store answers it from an index of FAILED records by
     * sequence, however many other records the table holds.
     *
     * @since 0.1.0
     */
    default FetchedRows findFailedPage(FailedRecordFilter filter, FailedRecordOrder order, @Nullable Long afterSequence,
            @Nullable Long throughSequence, int limit) {
        throw new UnsupportedOperationException(getClass().getName() + " does not page FAILED records");
    }

    /**
     * The sequence of the {@code n}th FAILED record after the one of {@code afterSequence} in {@code order} (from the
     * first when null), whatever its fields: where a filtered page stops looking. Null when there are fewer, and by
     * default (pages are then not bounded).
     *
     * @since 0.1.0
     */
    default @Nullable Long failedSequenceAfter(FailedRecordOrder order, @Nullable Long afterSequence, int n) {
        return null;
    }

    /**
     * How many FAILED records match the filter: what {@link #retryAllFailed}, {@link #skipAllFailed} or
     * {@link #deleteAllFailed} would change at this moment.
     *
     * @since 0.1.0
     */
    default long countFailed(FailedRecordFilter filter) {
        throw new UnsupportedOperationException(getClass().getName() + " does not count FAILED records");
    }

    /**
     * {@link #skipFailed} for every FAILED record matching the filter, in one statement; returns how many.
     *
     * @since 0.1.0
     */
    default int skipAllFailed(FailedRecordFilter filter, Instant now) {
        throw new UnsupportedOperationException(getClass().getName() + " does not skip FAILED records by filter");
    }

    /**
     * Deletes every FAILED record matching the filter (SKIPPED ones stay), in one statement; returns how many.
     *
     * @since 0.1.0
     */
    default int deleteAllFailed(FailedRecordFilter filter) {
        throw new UnsupportedOperationException(getClass().getName() + " does not delete FAILED records by filter");
    }

    /**
     * For each FAILED record among {@code failedIds}, how many NEW records of its lane (its aggregate and handler)
     * come after it: with stop-on-first-failure they wait until it is retried or skipped. Ids of records that are not
     * FAILED are left out of the answer.
     *
     * @since 0.1.0
     */
    default Map<String, Long> countNewBehind(Collection<String> failedIds) {
        throw new UnsupportedOperationException(getClass().getName()
                + " does not count the records behind FAILED ones");
    }

    /**
     * The NEW and FAILED records of one partition (0 to 255): how many, how many of the NEW ones are not due at
     * {@code now} or deferred, and the oldest of each status, in one read. A database store answers it from indexes
     * of the open records, never by reading the completed ones.
     *
     * @since 0.1.0
     */
    default PartitionRecords partitionRecords(int partition, Instant now) {
        throw new UnsupportedOperationException(getClass().getName() + " does not count a partition's records");
    }
}
