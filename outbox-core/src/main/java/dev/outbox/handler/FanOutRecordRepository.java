package dev.outbox.handler;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.internal.repository.ForwardingRecordRepository;
import java.util.List;
import java.util.function.Function;

/** Stores one record per subscribed handler for records that are addressed to none; see OutboxHandlers. */
final class FanOutRecordRepository extends ForwardingRecordRepository {

    private final Function<String, List<String>> subscribers;

    FanOutRecordRepository(OutboxRecordRepository delegate, Function<String, List<String>> subscribers) {
        super(delegate);
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
    public String toString() {
        return "FanOutRecordRepository[" + delegate + "]";
    }
}
