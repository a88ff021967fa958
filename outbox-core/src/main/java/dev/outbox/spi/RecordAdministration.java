package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.List;

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
}
