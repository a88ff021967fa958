package dev.outbox.testing;

import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.UnreadableRow;
import java.time.Instant;
import java.util.List;
import java.util.OptionalLong;
import java.util.Objects;

/**
 * A {@link RecordStore} that passes every call to another one, default methods included (the delegate's own
 * implementation may differ from the default). Subclass it in tests to watch, delay or fail single calls (a fetch that
 * blocks, a completion that throws) while the rest behaves as the real store. {@code ForwardingRecordStoreTest} fails
 * when a method of {@link RecordStore} is not forwarded.
 */
public class ForwardingRecordStore implements RecordStore {

    private final RecordStore delegate;

    public ForwardingRecordStore(RecordStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public FetchedRows findDue(DueRecordsQuery query) {
        return delegate.findDue(query);
    }

    @Override
    public FetchedRows findDeferralsDue(DeferredRecordsQuery query) {
        return delegate.findDeferralsDue(query);
    }

    @Override
    public FetchedRows findUnknownStatusRows(OwnedPartitions partitions, int limit) {
        return delegate.findUnknownStatusRows(partitions, limit);
    }

    @Override
    public OptionalLong highestAssignedSequence() {
        return delegate.highestAssignedSequence();
    }

    @Override
    public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
        return delegate.markCompleted(deliveries, completedAt);
    }

    @Override
    public boolean markCompleted(Delivery delivery, Instant completedAt) {
        return delegate.markCompleted(delivery, completedAt);
    }

    @Override
    public List<Delivery> deleteCompleted(List<Delivery> deliveries) {
        return delegate.deleteCompleted(deliveries);
    }

    @Override
    public boolean deleteCompleted(Delivery delivery) {
        return delegate.deleteCompleted(delivery);
    }

    @Override
    public boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
        return delegate.scheduleRetry(delivery, retryCount, nextRetryAt, lastError);
    }

    @Override
    public boolean defer(Delivery delivery, Instant nextAttemptAt, String lastError, Instant deferredAt) {
        return delegate.defer(delivery, nextAttemptAt, lastError, deferredAt);
    }

    @Override
    public boolean markFailed(Delivery delivery, int retryCount, String lastError) {
        return delegate.markFailed(delivery, retryCount, lastError);
    }

    @Override
    public boolean failUnreadable(UnreadableRow row, Fence fence, String lastError) {
        return delegate.failUnreadable(row, fence, lastError);
    }
}
