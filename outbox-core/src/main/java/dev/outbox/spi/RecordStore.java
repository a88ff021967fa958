package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Instant;
import java.util.List;

/**
 * The processing side of record storage: finds due records and writes their outcome.
 *
 * <p>Each method runs in a short transaction of its own. Status writes change only the status columns, never the
 * payload, and only when the record is still {@code NEW} with the retry count it was read with: otherwise they change
 * nothing and report so, and the processor leaves the record alone.
 *
 * <p><b>The fence.</b> A record is handed out under its partition's {@link dev.outbox.partition.Fence} (owner and
 * epoch). A status write of a {@link Delivery} under a fence takes effect only while the partition table names that
 * owner under that epoch for the partition; a write of an owner that lost the partition, or that claimed it under an
 * older epoch, changes nothing and reports so, whoever else may own the partition now. An unfenced delivery (an
 * instance owning every partition without coordination) is not checked. Every store keeps this rule, and
 * {@code RecordStoreContract} tests it on each.
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

    /**
     * Marks the delivered records {@code COMPLETED} at {@code completedAt}, in one transaction and, where the store
     * can, one round trip; each write is conditional and fenced on its own.
     *
     * @return the deliveries whose write did not take effect
     */
    List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt);

    /**
     * Deletes the delivered records instead of marking them, for {@code outbox.processing.delete-completed-records};
     * otherwise as {@link #markCompleted(List, Instant)}.
     *
     * @return the deliveries whose delete did not take effect
     */
    List<Delivery> deleteCompleted(List<Delivery> deliveries);

    /** Keeps the record {@code NEW}, with {@code retryCount}, due again at {@code nextRetryAt}, and the error text. */
    boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError);

    /** Marks the record {@code FAILED} with the error text; it is not processed again. */
    boolean markFailed(Delivery delivery, int retryCount, String lastError);

    /** {@link #markCompleted(List, Instant)} of one delivery; true when it took effect. */
    default boolean markCompleted(Delivery delivery, Instant completedAt) {
        return markCompleted(List.of(delivery), completedAt).isEmpty();
    }

    /** {@link #deleteCompleted(List)} of one delivery; true when it took effect. */
    default boolean deleteCompleted(Delivery delivery) {
        return deleteCompleted(List.of(delivery)).isEmpty();
    }
}
