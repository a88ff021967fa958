package dev.outbox.boot.acceptance;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Remembers every invocation; a test may add a behaviour that runs before a record counts as handled (throw to fail
 * it, block to hold it). Shared across application contexts of one test, so restarts can be checked as a whole.
 */
public final class RecordingProcessor implements OutboxRecordProcessor {

    private final List<OutboxRecord> invocations = new CopyOnWriteArrayList<>();
    private final List<OutboxRecord> handled = new CopyOnWriteArrayList<>();
    private final Set<String> failingAggregates = ConcurrentHashMap.newKeySet();
    private final Set<String> failingPayloads = ConcurrentHashMap.newKeySet();
    private volatile Consumer<OutboxRecord> beforeHandling = record -> { };

    @Override
    public void process(OutboxRecord record) {
        invocations.add(record);
        if (failingPayloads.contains(record.getPayload()) || failingAggregates.contains(record.getAggregateId())) {
            throw new IllegalStateException("downstream rejected " + record.getPayload());
        }
        beforeHandling.accept(record);
        handled.add(record);
    }

    public void failPayload(String payload) {
        failingPayloads.add(payload);
    }

    public void stopFailingPayload(String payload) {
        failingPayloads.remove(payload);
    }

    public void failAggregate(String aggregateId) {
        failingAggregates.add(aggregateId);
    }

    public void beforeHandling(Consumer<OutboxRecord> action) {
        this.beforeHandling = action;
    }

    /** Every call, failed ones included. */
    public List<OutboxRecord> invocations() {
        return List.copyOf(invocations);
    }

    /** Calls that succeeded, in the order they finished. */
    public List<OutboxRecord> handled() {
        return List.copyOf(handled);
    }

    public List<String> handledPayloads() {
        return handled.stream().map(OutboxRecord::getPayload).toList();
    }

    public long invocationsOf(String payload) {
        return invocations.stream().filter(r -> r.getPayload().equals(payload)).count();
    }

    /** Successfully handled payloads per aggregate, in handling order. */
    public Map<String, List<String>> handledPayloadsByAggregate() {
        Map<String, List<String>> byAggregate = new LinkedHashMap<>();
        for (OutboxRecord record : handled) {
            byAggregate.computeIfAbsent(record.getAggregateId(), id -> new ArrayList<>()).add(record.getPayload());
        }
        return byAggregate;
    }
}
