package dev.outbox.benchmark;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/** Percentiles (nearest rank) and rounding for the report. */
final class Stats {

    private Stats() {
    }

    /** p50, p95, p99 and max of microsecond values, in milliseconds. */
    static Map<String, Object> latencyMillis(long[] micros) {
        long[] sorted = micros.clone();
        Arrays.sort(sorted);
        Map<String, Object> stats = new LinkedHashMap<>();
        stats.put("count", sorted.length);
        if (sorted.length == 0) {
            return stats;
        }
        stats.put("minMs", millis(sorted[0]));
        stats.put("p50Ms", millis(percentile(sorted, 0.50)));
        stats.put("p95Ms", millis(percentile(sorted, 0.95)));
        stats.put("p99Ms", millis(percentile(sorted, 0.99)));
        stats.put("maxMs", millis(sorted[sorted.length - 1]));
        stats.put("meanMs", round(Arrays.stream(sorted).average().orElse(0) / 1_000.0, 3));
        return stats;
    }

    static long percentile(long[] sorted, double quantile) {
        int rank = (int) Math.ceil(quantile * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    static double millis(long micros) {
        return round(micros / 1_000.0, 3);
    }

    static double round(double value, int decimals) {
        double scale = Math.pow(10, decimals);
        return Math.round(value * scale) / scale;
    }

    static double seconds(long nanos) {
        return round(nanos / 1e9, 3);
    }

    static double rate(long count, double seconds) {
        return seconds <= 0 ? 0 : round(count / seconds, 1);
    }
}
