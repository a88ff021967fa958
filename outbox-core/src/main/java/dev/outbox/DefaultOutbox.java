package dev.outbox;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.function.Function;

final class DefaultOutbox implements Outbox {

    private final OutboxRecordRepository repository;
    private final PayloadSerializer serializer;
    private final Clock clock;
    private final int maxPayloadBytes;
    private final Function<Object, String> eventTypeResolver;

    DefaultOutbox(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock, int maxPayloadBytes,
            Function<Object, String> eventTypeResolver) {
        this.repository = repository;
        this.serializer = serializer;
        this.clock = clock;
        this.maxPayloadBytes = maxPayloadBytes;
        this.eventTypeResolver = eventTypeResolver;
    }

    @Override
    public boolean isTransactionActive() {
        return repository.isTransactionActive();
    }

    @Override
    public OutboxRecord schedule(Object event, String aggregateId) {
        Objects.requireNonNull(event, "event must not be null");
        return schedule(event, aggregateId, eventTypeResolver.apply(event));
    }

    @Override
    public OutboxRecord schedule(Object event, String aggregateId, String eventType) {
        return repository.save(builder(event, aggregateId, eventType).build(clock));
    }

    @Override
    public OutboxRecord scheduleAt(Object event, String aggregateId, Instant availableAt) {
        return repository.save(builder(event, aggregateId, eventTypeOf(event)).availableAt(availableAt).build(clock));
    }

    @Override
    public OutboxRecord scheduleAfter(Object event, String aggregateId, Duration delay) {
        return repository.save(builder(event, aggregateId, eventTypeOf(event)).deliverAfter(delay).build(clock));
    }

    private String eventTypeOf(Object event) {
        return eventTypeResolver.apply(Objects.requireNonNull(event, "event must not be null"));
    }

    private OutboxRecord.Builder builder(Object event, String aggregateId, String eventType) {
        Objects.requireNonNull(event, "event must not be null");
        return OutboxRecord.builder()
                .aggregateId(aggregateId)
                .eventType(eventType)
                .payload(serializer.serialize(event))
                .maxPayloadBytes(maxPayloadBytes);
    }
}
