package dev.outbox.benchmark.publish;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What a destination holds against what was written: records missing, messages no record was written for, copies,
 * and aggregates whose first occurrences are out of sequence order.
 *
 * @param written record id → aggregate and sequence, as stored
 * @param delivered the destination's messages in its order
 */
public record DeliveryTally(Map<String, Delivered> written, List<Delivered> delivered) {

    public long missing() {
        Set<String> seen = new HashSet<>();
        delivered.forEach(message -> seen.add(message.recordId()));
        return written.keySet().stream().filter(id -> !seen.contains(id)).count();
    }

    public long unknown() {
        return delivered.stream().filter(message -> !message.equals(written.get(message.recordId()))).count();
    }

    public long copies() {
        Set<String> seen = new HashSet<>();
        return delivered.stream().filter(message -> !seen.add(message.recordId())).count();
    }

    public long aggregatesOutOfOrder() {
        Map<String, List<Long>> firsts = new HashMap<>();
        Set<String> seen = new HashSet<>();
        for (Delivered message : delivered) {
            if (seen.add(message.recordId())) {
                firsts.computeIfAbsent(message.aggregateId(), aggregate -> new ArrayList<>()).add(message.sequence());
            }
        }
        return firsts.values().stream().filter(sequences -> {
            for (int i = 1; i < sequences.size(); i++) {
                if (sequences.get(i) <= sequences.get(i - 1)) {
                    return true;
                }
            }
            return false;
        }).count();
    }

    public boolean passed() {
        return missing() == 0 && unknown() == 0 && aggregatesOutOfOrder() == 0;
    }

    public Map<String, Object> describe() {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("written", written.size());
        summary.put("delivered", delivered.size());
        summary.put("missing", missing());
        summary.put("unknown", unknown());
        summary.put("copies", copies());
        summary.put("aggregatesOutOfOrder", aggregatesOutOfOrder());
        return summary;
    }

    @Override
    public String toString() {
        return missing() + " missing, " + copies() + " copies, " + aggregatesOutOfOrder() + " aggregates out of order";
    }
}
