package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;

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
     * it. Otherwise every due {@code NEW} record qualifies. Records addressed to a handler id in
     * {@link DueRecordsQuery#setAside()} are left out, and do not hold back other handlers' records.
     *
     * <p>Rows among them that cannot be read as records (see {@link UnreadableRow}) are reported apart instead of
     * failing the read; the processor fails them with {@link #failUnreadable}. A store whose rows are always records
     * returns {@link FetchedRows#of(List)}.
     */
    FetchedRows findDue(DueRecordsQuery query);

    /**
     * Records addressed to handlers this instance lacks that need a decision: their first deferral, or failing once
     * {@code outbox.processing.max-deferral} has passed since it (see {@link DeferredRecordsQuery}). Ordered by
     * sequence, at most {@link DeferredRecordsQuery#limit()} of them. The processor asks every deferral interval, and
     * at once again while a batch comes back full, so that a deferred backlog is read once and written once.
     *
     * Unreadable rows are reported apart as in {@link #findDue}.
     *
     * <p>A store whose {@link #findDue} honours {@link DueRecordsQuery#setAside()} must implement this; the default
     * finds nothing, which suits a store that ignores it (its deferred records then come back in every fetch).
     *
     * @since 0.1.0
     */
    default FetchedRows findDeferralsDue(DeferredRecordsQuery query) {
        return FetchedRows.of(List.of());
    }

    /**
     * Marks the delivered records {@code COMPLETED} at {@code completedAt} (and clears their first deferral), in one
     * transaction and, where the store can, one round trip; each write is conditional and fenced on its own.
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

    /**
     * Keeps the record {@code NEW}, with {@code retryCount}, due again at {@code nextRetryAt}, and the error text. An
     * attempt was made, so the record is no longer deferred: its {@link OutboxRecord#getFirstDeferredAt()} is cleared.
     */
    boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError);

    /**
     * Defers the record for an instance that has its handler: keeps it {@code NEW} with the retry count it was read
     * with, due again at {@code nextAttemptAt}, with the error text, and stores {@code deferredAt} as its
     * {@link OutboxRecord#getFirstDeferredAt() first deferral} unless it has one already, so that
     * {@code outbox.processing.max-deferral} counts from the first deferral and not from the record's creation.
     *
     * <p>The default is {@link #scheduleRetry} and keeps no first deferral: a store that does not override it never
     * ends a deferral.
     *
     * @since 0.1.0
     */
    default boolean defer(Delivery delivery, Instant nextAttemptAt, String lastError, Instant deferredAt) {
        return scheduleRetry(delivery, delivery.record().getRetryCount(), nextAttemptAt, lastError);
    }

    /**
     * Marks the record {@code FAILED} with the error text; it is not processed again. Its first deferral, if any, is
     * kept: it tells since when it waited. An operator's retry clears it.
     */
    boolean markFailed(Delivery delivery, int retryCount, String lastError);

    /**
     * Rows of the partitions whose status is none the library knows (written by SQL, such as {@code 'new'} or
     * {@code 'failed '}): no due fetch reads them where the database compares text exactly, so without this look they
     * would wait unseen forever. Each is reported as an {@link UnreadableRow} (its problem
     * {@link UnreadableRow.Problem#UNKNOWN_STATUS}, or another one found first), in sequence order, at most
     * {@code limit}; the processor then fails it like the other unreadable rows. The processor looks rarely (see
     * {@code OutboxProcessor}), so the query need only be cheap when it finds nothing. The default finds none, which
     * suits a store that cannot hold such a status.
     *
     * @since 0.1.0
     */
    default FetchedRows findUnknownStatusRows(OwnedPartitions partitions, int limit) {
        return FetchedRows.of(List.of());
    }

    /**
     * The highest sequence the store has handed out to a record so far, whether its transaction has committed or not,
     * or empty when the store cannot tell. A sequence handed out after this call returns is higher than what it
     * returned. The processor asks while its fetches start past the handled records ({@link
     * DueRecordsQuery#fromSequence()}), about four times a second, so that such a fetch may start just below the
     * lowest record the last one found instead of a second behind it; the call must be cheap. The default cannot
     * tell, and the floor then stays a second behind.
     *
     * @since 0.1.0
     */
    default OptionalLong highestAssignedSequence() {
        return OptionalLong.empty();
    }

    /**
     * Marks a row {@link #findDue}, {@link #findDeferralsDue} or {@link #findUnknownStatusRows} reported as unreadable {@code FAILED} with the
     * error text, by its id, only while its status and partition are still as read and, under a fence, only while the
     * partition table names the fence's owner under its epoch for the row's partition ({@code partition_no} as stored:
     * the partition whose owner read it). Nothing else of the row is written.
     *
     * <p>A store that reports unreadable rows must implement this.
     *
     * @param row a row with an id, a status and a partition in {@code 0..255}
     * @param fence the fence of the row's stored partition
     * @return true when it took effect
     * @since 0.1.0
     */
    default boolean failUnreadable(UnreadableRow row, Fence fence, String lastError) {
        throw new UnsupportedOperationException(getClass().getName() + " reports no unreadable rows to fail");
    }

    /** {@link #markCompleted(List, Instant)} of one delivery; true when it took effect. */
    default boolean markCompleted(Delivery delivery, Instant completedAt) {
        return markCompleted(List.of(delivery), completedAt).isEmpty();
    }

    /** {@link #deleteCompleted(List)} of one delivery; true when it took effect. */
    default boolean deleteCompleted(Delivery delivery) {
        return deleteCompleted(List.of(delivery)).isEmpty();
    }
}
