package dev.outbox.testing;

import dev.outbox.OutboxRecord;
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
    public boolean markCompleted(OutboxRecord record, Instant completedAt) {
        return delegate.markCompleted(record, completedAt);
    }

    @Override
    public List<OutboxRecord> markCompleted(List<OutboxRecord> records, Instant completedAt) {
        return delegate.markCompleted(records, completedAt);
    }

    @Override
    public boolean deleteCompleted(OutboxRecord record) {
        return delegate.deleteCompleted(record);
    }

    @Override
    public List<OutboxRecord> deleteCompleted(List<OutboxRecord> records) {
        return delegate.deleteCompleted(records);
    }

    @Override
    public boolean scheduleRetry(OutboxRecord record, int retryCount, Instant nextRetryAt, String lastError) {
        return delegate.scheduleRetry(record, retryCount, nextRetryAt, lastError);
    }

    @Override
    public boolean markFailed(OutboxRecord record, int retryCount, String lastError) {
        return delegate.markFailed(record, retryCount, lastError);
    }
}
