package dev.outbox.benchmark;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * The JDBC statements the nodes ran during a drain, by type, in all and per 100 records: where the round trips of a
 * batch go (the due fetch, the completions, the handler recording, coordination).
 */
final class DrainStatements {

    private DrainStatements() {
    }

    static Map<String, Object> between(List<@Nullable NodeReport> before, List<@Nullable NodeReport> after,
            long records) {
        Map<String, Long> byType = new TreeMap<>();
        long borrowed = 0;
        for (int index = 0; index < after.size(); index++) {
            NodeReport end = after.get(index);
            NodeReport start = index < before.size() ? before.get(index) : null;
            if (end == null) {
                continue;
            }
            borrowed += end.connectionsBorrowed() - (start == null ? 0 : start.connectionsBorrowed());
            end.statements().forEach((type, count) -> byType.merge(type,
                    count - (start == null ? 0 : start.statements().getOrDefault(type, 0L)), Long::sum));
        }
        Map<String, Object> per100 = new LinkedHashMap<>();
        byType.forEach((type, count) -> per100.put(type, Stats.round(count * 100.0 / Math.max(1, records), 2)));
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("byType", byType);
        result.put("per100Records", per100);
        result.put("connectionsBorrowedPer100Records", Stats.round(borrowed * 100.0 / Math.max(1, records), 2));
        return result;
    }
}
