package dev.outbox.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** The bloat benchmark's console lines and the snapshot-against-clean ratios. */
final class BloatReport {

    /** The goal of issue 31: with the snapshot at least this fraction of the clean run's rate … */
    static final double RATE_GOAL = 0.8;
    /** … and a p99 latency at most this multiple of the clean run's. */
    static final double P99_GOAL = 2.0;

    private BloatReport() {
    }

    static boolean checksHold(Map<String, Object> measured) {
        if (!(measured.get("checks") instanceof Map<?, ?> checks)) {
            return false;
        }
        return number(checks.get("duplicates")) == 0 && number(checks.get("orderViolations")) == 0
                && number(checks.get("missing")) == 0;
    }

    /** One line: rate, latency (steady flow), table size, dead tuples, tuples read per record, checks. */
    static String line(Map<String, Object> measured) {
        if (measured.containsKey("error")) {
            return "FAILED: " + measured.get("error");
        }
        StringBuilder line = new StringBuilder();
        line.append(String.format("%,.0f rec/s", rate(measured)));
        if (measured.get("commitToHandlerLatency") instanceof Map<?, ?> latency) {
            line.append(String.format("; latency p50 %.1f ms, p99 %.1f ms, max %.1f ms", number(latency.get("p50Ms")),
                    number(latency.get("p99Ms")), number(latency.get("maxMs"))));
        }
        if (measured.get("table") instanceof Map<?, ?> table) {
            line.append(String.format("; table %s (heap %s, indexes %s), %,d dead; %.1f tuples read/record",
                    TableFootprint.megabytes((long) number(table.get("totalBytes"))),
                    TableFootprint.megabytes((long) number(table.get("heapBytes"))),
                    TableFootprint.megabytes((long) number(table.get("indexBytes"))),
                    (long) number(table.get("deadTuples")), number(table.get("tuplesReadPerRecord"))));
        }
        if (measured.get("checks") instanceof Map<?, ?> checks) {
            line.append(String.format("; %d dup, %d order, %d missing", (long) number(checks.get("duplicates")),
                    (long) number(checks.get("orderViolations")), (long) number(checks.get("missing"))));
        }
        return line.toString();
    }

    /** Snapshot against clean: rate and p99 ratios against the goal; stored as {@code <key>-ratio}. */
    static String compare(String label, Map<String, Map<String, Object>> pair, Map<String, Object> measurements,
            String key) {
        Map<String, Object> clean = pair.get("clean");
        Map<String, Object> snapshot = pair.get("snapshot");
        if (clean == null || snapshot == null || clean.containsKey("error") || snapshot.containsKey("error")) {
            return label + ": no comparison (a run failed)";
        }
        Map<String, Object> ratio = new LinkedHashMap<>();
        double rateRatio = Stats.round(rate(snapshot) / rate(clean), 3);
        ratio.put("rateSnapshotOverClean", rateRatio);
        ratio.put("rateGoalMet", rateRatio >= RATE_GOAL);
        String text = String.format("%s: snapshot/clean rate %.2f× (goal ≥ %.1f×)", label, rateRatio, RATE_GOAL);
        Double p99Ratio = p99Ratio(clean, snapshot);
        if (p99Ratio != null) {
            ratio.put("p99SnapshotOverClean", p99Ratio);
            ratio.put("p99GoalMet", p99Ratio <= P99_GOAL);
            text += String.format(", p99 %.2f× (goal ≤ %.1f×)", p99Ratio, P99_GOAL);
        }
        measurements.put(key + "-ratio", ratio);
        return text;
    }

    private static @Nullable Double p99Ratio(Map<String, Object> clean, Map<String, Object> snapshot) {
        if (clean.get("commitToHandlerLatency") instanceof Map<?, ?> a
                && snapshot.get("commitToHandlerLatency") instanceof Map<?, ?> b && number(a.get("p99Ms")) > 0) {
            return Stats.round(number(b.get("p99Ms")) / number(a.get("p99Ms")), 3);
        }
        return null;
    }

    /** The drain rate of a backlog run; the handled rate of a steady flow. */
    private static double rate(Map<String, Object> measured) {
        Object rate = measured.containsKey("recordsPerSecond") ? measured.get("recordsPerSecond")
                : measured.get("handledRatePerSecond");
        return number(rate);
    }

    private static double number(@Nullable Object value) {
        return value instanceof Number number ? number.doubleValue() : 0;
    }
}
