package dev.outbox.internal.repository;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import java.util.List;
import java.util.Optional;

/** A repository that changes how records are saved and reads through {@link #delegate}. */
public abstract class ForwardingRecordRepository implements OutboxRecordRepository {

    protected final OutboxRecordRepository delegate;

    protected ForwardingRecordRepository(OutboxRecordRepository delegate) {
        this.delegate = delegate;
    }

    @Override
    public boolean isTransactionActive() {
        return delegate.isTransactionActive();
    }

    @Override
    public Optional<OutboxRecord> findById(String id) {
        return delegate.findById(id);
    }

    @Override
    public List<OutboxRecord> findByAggregateId(String aggregateId) {
        return delegate.findByAggregateId(aggregateId);
    }

    @Override
    public List<OutboxRecord> findByStatus(OutboxRecordStatus status, int limit) {
        return delegate.findByStatus(status, limit);
    }

    @Override
    public long countByStatus(OutboxRecordStatus status) {
        return delegate.countByStatus(status);
    }
}
