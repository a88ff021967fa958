package dev.outbox.testing;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.RecordStore;
import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * A {@link RecordStore} that passes every call to another one. Subclass it in tests to watch, delay or fail single
 * calls (a fetch that blocks, a completion that throws) while the rest behaves as the real store.
 */
public class ForwardingRecordStore implements RecordStore {

    private final RecordStore delegate;

    public ForwardingRecordStore(RecordStore delegate) {
        this.delegate = Objects.requireNonNull(delegate, "delegate");
    }

    @Override
    public List<OutboxRecord> findDue(DueRecordsQuery query) {
        return delegate.findDue(query);
    }

    @Override
    public List<OutboxRecord> findDeferralsDue(DeferredRecordsQuery query) {
        return delegate.findDeferralsDue(query);
    }

    @Override
    public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
        return delegate.markCompleted(deliveries, completedAt);
    }

    @Override
    public List<Delivery> deleteCompleted(List<Delivery> deliveries) {
        return delegate.deleteCompleted(deliveries);
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
}
