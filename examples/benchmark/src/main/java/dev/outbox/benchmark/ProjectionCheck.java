package dev.outbox.benchmark;

import static dev.outbox.benchmark.ProjectionHandlers.COUNTERS_TABLE;
import static dev.outbox.benchmark.ProjectionHandlers.ROWS_TABLE;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * What the transactional projection must hold once its records are COMPLETED: one row per record (none missing, none
 * twice, none of a record that is not there), the record's aggregate and sequence on it, each aggregate's rows in its
 * sequence order by insert position, and each aggregate's counter equal to its records.
 */
final class ProjectionCheck {

    private ProjectionCheck() {
    }

    /** The figures, and {@code passed}: whether every one is as it must be. */
    static Map<String, Object> run(JdbcTemplate jdbc, long records) {
        Map<String, Object> checks = new LinkedHashMap<>();
        checks.put("records", records);
        checks.put("rows", count(jdbc, "SELECT COUNT(*) FROM " + ROWS_TABLE));
        checks.put("duplicates", count(jdbc, "SELECT COALESCE(SUM(n - 1), 0) FROM (SELECT COUNT(*) AS n FROM "
                + ROWS_TABLE + " GROUP BY record_id) rows_per_record"));
        checks.put("missing", count(jdbc, "SELECT COUNT(*) FROM outbox_record r WHERE NOT EXISTS (SELECT 1 FROM "
                + ROWS_TABLE + " p WHERE p.record_id = r.id)"));
        checks.put("unknown", count(jdbc, "SELECT COUNT(*) FROM " + ROWS_TABLE + " p WHERE NOT EXISTS (SELECT 1 FROM"
                + " outbox_record r WHERE r.id = p.record_id)"));
        checks.put("wrongAggregateOrSequence", count(jdbc, "SELECT COUNT(*) FROM " + ROWS_TABLE + " p JOIN"
                + " outbox_record r ON r.id = p.record_id WHERE p.aggregate_id <> r.aggregate_id"
                + " OR p.sequence_no IS DISTINCT FROM r.sequence_no"));
        checks.put("orderViolations", count(jdbc, "SELECT COUNT(*) FROM (SELECT sequence_no, LAG(sequence_no)"
                + " OVER (PARTITION BY aggregate_id ORDER BY position) AS previous FROM " + ROWS_TABLE
                + ") ordered WHERE sequence_no IS NULL OR sequence_no <= previous"));
        checks.put("aggregates", count(jdbc, "SELECT COUNT(DISTINCT aggregate_id) FROM outbox_record"));
        checks.put("wrongCounters", count(jdbc, "SELECT COUNT(*) FROM (SELECT aggregate_id, COUNT(*) AS n FROM"
                + " outbox_record GROUP BY aggregate_id) expected FULL JOIN " + COUNTERS_TABLE + " c USING"
                + " (aggregate_id) WHERE expected.n IS DISTINCT FROM c.handled"));
        checks.put("notCompleted", count(jdbc, "SELECT COUNT(*) FROM outbox_record WHERE status <> 'COMPLETED'"));
        boolean passed = checks.get("rows").equals(records)
                && checks.get("duplicates").equals(0L) && checks.get("missing").equals(0L)
                && checks.get("unknown").equals(0L) && checks.get("wrongAggregateOrSequence").equals(0L)
                && checks.get("orderViolations").equals(0L) && checks.get("wrongCounters").equals(0L)
                && checks.get("notCompleted").equals(0L);
        checks.put("passed", passed);
        return checks;
    }

    private static long count(JdbcTemplate jdbc, String sql) {
        Number count = jdbc.queryForObject(sql, Number.class);
        return count == null ? 0 : count.longValue();
    }
}
