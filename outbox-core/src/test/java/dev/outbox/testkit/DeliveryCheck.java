package dev.outbox.testkit;

import dev.outbox.OutboxRecord;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What a consumer of a destination saw, against what was written: missing records, unknown ones, copies, and the
 * ordering invariant (for every aggregate, the first occurrence of each record in sequence order).
 *
 * @param written records written, with their sequence numbers
 * @param consumed messages in the order the consumer read them (per aggregate, the destination's order)
 */
public record DeliveryCheck(List<OutboxRecord> written, List<Consumed> consumed) {

    /** One message as read back: the record id, aggregate and sequence from its headers. */
    public record Consumed(String recordId, String aggregateId, long sequence) {
    }

    public static DeliveryCheck of(List<OutboxRecord> written, List<Consumed> consumed) {
        return new DeliveryCheck(List.copyOf(written), List.copyOf(consumed));
    }

    /** Ids written and never consumed. */
    public List<String> missing() {
        Set<String> seen = new HashSet<>();
        consumed.forEach(message -> seen.add(message.recordId()));
        return written.stream().map(OutboxRecord::getId).filter(id -> !seen.contains(id)).toList();
    }

    /** Consumed messages whose id, aggregate or sequence match no written record. */
    public List<Consumed> unknown() {
        Map<String, OutboxRecord> byId = new HashMap<>();
        written.forEach(record -> byId.put(record.getId(), record));
        return consumed.stream().filter(message -> {
            OutboxRecord record = byId.get(message.recordId());
            return record == null || !record.getAggregateId().equals(message.aggregateId())
                    || !Objects.equals(record.getSequence(), message.sequence());
        }).toList();
    }

    /** Messages beyond the first of their record. */
    public int copies() {
        Set<String> seen = new HashSet<>();
        int copies = 0;
        for (Consumed message : consumed) {
            if (!seen.add(message.recordId())) {
                copies++;
            }
        }
        return copies;
    }

    /**
     * Aggregates whose first occurrences are not in sequence order, each with its first-occurrence sequence numbers:
     * empty when the ordering invariant holds.
     */
    public Map<String, List<Long>> orderViolations() {
        Map<String, List<Long>> firstOccurrences = new LinkedHashMap<>();
        Set<String> seen = new HashSet<>();
        for (Consumed message : consumed) {
            if (seen.add(message.recordId())) {
                firstOccurrences.computeIfAbsent(message.aggregateId(), aggregate -> new ArrayList<>())
                        .add(message.sequence());
            }
        }
        Map<String, List<Long>> violations = new LinkedHashMap<>();
        firstOccurrences.forEach((aggregate, sequences) -> {
            for (int i = 1; i < sequences.size(); i++) {
                if (sequences.get(i) <= sequences.get(i - 1)) {
                    violations.put(aggregate, sequences);
                    return;
                }
            }
        });
        return violations;
    }

    @Override
    public String toString() {
        return written.size() + " written, " + consumed.size() + " consumed: " + missing().size() + " missing, "
                + unknown().size() + " unknown, " + copies() + " copies, " + orderViolations().size()
                + " aggregates out of order";
    }
}
