package dev.outbox.benchmark;

import java.util.Map;

/** The publisher benchmark's table: a line per target. */
final class PublisherTable {

    private PublisherTable() {
    }

    static void print(Map<String, Object> measurements) {
        System.out.printf("%-10s %16s %8s %16s %8s %30s %s%n", "target", "drain records/s", "× no-op",
                "plain client/s", "× plain", "commit→ack p50 / p95 / p99 ms", "read back");
        measurements.forEach((name, measured) -> {
            if (!(measured instanceof Map<?, ?> map) || map.containsKey("error")) {
                System.out.printf("%-10s FAILED: %s%n", name, measured instanceof Map<?, ?> m ? m.get("error") : "");
                return;
            }
            Map<?, ?> latency = (Map<?, ?>) map.get("latency");
            Object plain = map.get("plainClientMessagesPerSecond");
            System.out.printf("%-10s %,16.0f %8s %16s %8s %30s %s%n", name, (Double) map.get("drainRecordsPerSecond"),
                    map.get("drainRatioToNoop"), plain == null ? "-" : String.format("%,.0f", (Double) plain),
                    map.containsKey("drainRatioToPlainClient") ? map.get("drainRatioToPlainClient") : "-",
                    latency.get("p50Ms") + " / " + latency.get("p95Ms") + " / " + latency.get("p99Ms"),
                    map.containsKey("readBack") ? map.get("readBack") : "-");
        });
    }
}
