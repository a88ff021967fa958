package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.List;

/**
 * The processing side of record storage: finds due records and writes their outcome.
 *
 * <p>Each method runs in a short transaction of its own. Status writes change only the status columns, never the
 * payload, and only when the record is still {@code NEW}: they return false when the row was changed or removed by
 * someone else, and the processor then leaves the record alone.
 */
public interface RecordStore {

    /**
     * Due {@code NEW} records of the query's partitions, ordered by {@link OutboxRecord#getSequence() sequence}, at
     * most {@link DueRecordsQuery#limit()} of them.
     *
     * <p>When {@link DueRecordsQuery#headOfAggregateOnly()} is set, a record is due only if every earlier record of
     * its aggregate is {@code COMPLETED}, or is itself {@code NEW} and due: each aggregate then contributes a gap-free
     * prefix of its pending records, and a record waiting for a retry, or {@code FAILED}, holds back everything after
     * it. Otherwise every due {@code NEW} record qualifies.
     */
    List<OutboxRecord> findDue(DueRecordsQuery query);

    /** Marks the record {@code COMPLETED} at {@code completedAt}. */
    boolean markCompleted(OutboxRecord record, Instant completedAt);

    /**
     * Marks several records {@code COMPLETED}, in one round trip where the store can.
     *
     * @return the records whose write did not take effect
     */
    default List<OutboxRecord> markCompleted(List<OutboxRecord> records, Instant completedAt) {
        return records.stream().filter(record -> !markCompleted(record, completedAt)).toList();
    }

    /** Deletes a handled record instead of marking it, for {@code outbox.processing.delete-completed-records}. */
    boolean deleteCompleted(OutboxRecord record);

    /**
     * Deletes several handled records, in one round trip where the store can.
     *
     * @return the records whose delete did not take effect
     */
    default List<OutboxRecord> deleteCompleted(List<OutboxRecord> records) {
        return records.stream().filter(record -> !deleteCompleted(record)).toList();
    }

    /** Keeps the record {@code NEW}, with {@code retryCount}, due again at {@code nextRetryAt}, and the error text. */
    boolean scheduleRetry(OutboxRecord record, int retryCount, Instant nextRetryAt, String lastError);

    /** Marks the record {@code FAILED} with the error text; it is not processed again. */
    boolean markFailed(OutboxRecord record, int retryCount, String lastError);
}
