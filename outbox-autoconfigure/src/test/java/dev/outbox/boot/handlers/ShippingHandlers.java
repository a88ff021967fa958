package dev.outbox.boot.handlers;

import dev.outbox.OutboxRecord;
import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** Handlers as users write them: bean methods, one event type with several subscribers. */
public class ShippingHandlers {

    /** The test's event, written as JSON by the application's mapper. */
    public record OrderShipped(String orderId, int parcel) {
    }

    /** One handler call. */
    public record Call(String handler, String aggregateId, int parcel, int attempt, Instant at) {
    }

    final List<Call> calls = new CopyOnWriteArrayList<>();
    final List<String> fallbacks = new CopyOnWriteArrayList<>();
    /** Parcels the ledger cannot book yet: it throws for them until they are removed. */
    final Set<Integer> ledgerRefuses = ConcurrentHashMap.newKeySet();
    /** Parcels the customs handler refuses for good (no retries). */
    final Set<Integer> customsRefuses = ConcurrentHashMap.newKeySet();
    /** Aggregates whose failed customs records the fallback takes. */
    final Set<String> fallbackAggregates = ConcurrentHashMap.newKeySet();

    @OutboxHandler(id = "mailer")
    public void mail(OrderShipped event, RecordMetadata metadata) {
        record("mailer", event, metadata);
    }

    @OutboxHandler(id = "ledger", retryPolicy = "ledgerRetryPolicy")
    public void book(RecordMetadata metadata, OrderShipped event) {
        record("ledger", event, metadata);
        if (ledgerRefuses.contains(event.parcel())) {
            throw new IllegalStateException("ledger is closed for parcel " + event.parcel());
        }
    }

    @OutboxHandler(id = "customs", maxRetries = 0, fallback = "customsGaveUp")
    public void declare(OrderShipped event, RecordMetadata metadata) {
        record("customs", event, metadata);
        if (customsRefuses.contains(event.parcel())) {
            throw new IllegalArgumentException("customs refuses parcel " + event.parcel());
        }
    }

    /** Takes the records of these aggregates; the others stay FAILED for an operator. */
    public void customsGaveUp(OutboxRecord record, Throwable failure) {
        if (!fallbackAggregates.contains(record.getAggregateId())) {
            throw new IllegalStateException("no fallback for " + record.getAggregateId());
        }
        fallbacks.add(record.getAggregateId() + ": " + failure.getMessage());
    }

    private void record(String handler, OrderShipped event, RecordMetadata metadata) {
        calls.add(new Call(handler, metadata.getAggregateId(), event.parcel(), metadata.getAttempt(), Instant.now()));
    }

    List<Integer> parcels(String handler, String aggregateId) {
        return calls.stream().filter(call -> call.handler().equals(handler) && call.aggregateId().equals(aggregateId))
                .map(Call::parcel).toList();
    }
}
