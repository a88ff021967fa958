package dev.outbox.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the handlers of a measurement saw, from {@code bench_handled} (all nodes together):
 *
 * <ul>
 *   <li><b>duplicates</b>: handler calls beyond the first for a record;</li>
 *   <li><b>order violations</b>: taking each record's first call only and ordering an aggregate's calls by the
 *       handler's clock at entry (then the node's call number), a record whose sequence number is not greater than the
 *       one handled before it;</li>
 *   <li><b>missing</b>: records written but never handled.</li>
 * </ul>
 *
 * @param handlerCalls rows in {@code bench_handled}
 * @param distinctRecords distinct record ids among them
 * @param duplicates {@code handlerCalls - distinctRecords}
 * @param orderViolations see above
 * @param missing records expected but never handled
 * @param callsPerInstance handler calls by node
 * @param examples a few violations, for the report
 */
record HandlingCheck(long handlerCalls, long distinctRecords, long duplicates, long orderViolations, long missing,
        Map<String, Long> callsPerInstance, List<String> examples) {

    private static final String ORDER_VIOLATIONS = """
            WITH first_call AS (
                SELECT DISTINCT ON (record_id) record_id, aggregate_id, sequence_no, instance_id, call_no, handled_at
                FROM bench_handled
                ORDER BY record_id, handled_at, call_no
            ), in_call_order AS (
                SELECT aggregate_id, sequence_no, instance_id, handled_at,
                       LAG(sequence_no) OVER w AS previous_sequence,
                       LAG(instance_id) OVER w AS previous_instance
                FROM first_call
                WINDOW w AS (PARTITION BY aggregate_id ORDER BY handled_at, call_no)
            )
            SELECT aggregate_id, sequence_no, instance_id, previous_sequence, previous_instance
            FROM in_call_order
            WHERE previous_sequence IS NOT NULL AND sequence_no <= previous_sequence
            ORDER BY handled_at
            """;

    static HandlingCheck run(JdbcTemplate jdbc, long expectedRecords) {
        Map<String, Object> totals = jdbc.queryForMap(
                "SELECT COUNT(*) AS calls, COUNT(DISTINCT record_id) AS distinct_records FROM bench_handled");
        long calls = ((Number) totals.get("calls")).longValue();
        long distinct = ((Number) totals.get("distinct_records")).longValue();
        List<String> examples = new ArrayList<>();
        long[] violations = {0};
        jdbc.query(ORDER_VIOLATIONS, rs -> {
            violations[0]++;
            if (examples.size() < 5) {
                examples.add(rs.getString("aggregate_id") + ": sequence " + rs.getLong("sequence_no") + " (by "
                        + rs.getString("instance_id") + ") first handled after sequence "
                        + rs.getLong("previous_sequence") + " (by " + rs.getString("previous_instance") + ")");
            }
        });
        Map<String, Long> perInstance = new LinkedHashMap<>();
        jdbc.query("SELECT instance_id, COUNT(*) AS calls FROM bench_handled GROUP BY instance_id ORDER BY 1",
                rs -> {
                    perInstance.put(rs.getString("instance_id"), rs.getLong("calls"));
                });
        return new HandlingCheck(calls, distinct, calls - distinct, violations[0],
                Math.max(0, expectedRecords - distinct), perInstance, examples);
    }

    boolean passed() {
        return duplicates == 0 && orderViolations == 0 && missing == 0;
    }

    String summary() {
        return duplicates + " dup, " + orderViolations + " order, " + missing + " missing";
    }

    Map<String, Object> describe() {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("handlerCalls", handlerCalls);
        described.put("distinctRecords", distinctRecords);
        described.put("duplicates", duplicates);
        described.put("orderViolations", orderViolations);
        described.put("missing", missing);
        described.put("callsPerInstance", callsPerInstance);
        described.put("violationExamples", examples);
        return described;
    }
}
