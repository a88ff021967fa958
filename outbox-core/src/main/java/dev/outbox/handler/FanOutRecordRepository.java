package dev.outbox.handler;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

/** Stores one record per subscribed handler for records that are addressed to none; see OutboxHandlers. */
final class FanOutRecordRepository implements OutboxRecordRepository {

    private final OutboxRecordRepository delegate;
    private final Function<String, List<String>> subscribers;

    FanOutRecordRepository(OutboxRecordRepository delegate, Function<String, List<String>> subscribers) {
        this.delegate = delegate;
        this.subscribers = subscribers;
    }

    @Override
    public OutboxRecord save(OutboxRecord record) {
        List<String> handlerIds = record.getHandlerId() == null ? subscribers.apply(record.getEventType()) : List.of();
        if (handlerIds.isEmpty()) {
            return delegate.save(record);
        }
        OutboxRecord first = delegate.save(record.withHandlerId(handlerIds.get(0)));
        for (String handlerId : handlerIds.subList(1, handlerIds.size())) {
            delegate.save(record.copyForHandler(handlerId));
        }
        return first;
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

    @Override
    public String toString() {
        return "FanOutRecordRepository[" + delegate + "]";
    }
}
