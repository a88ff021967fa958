package dev.outbox.benchmark;

import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * One measurement of the bloat benchmark on an emptied outbox table, one node: a steady flow of records, or a backlog
 * written first and then drained; with or without a REPEATABLE READ snapshot held open meanwhile ({@link
 * SnapshotHolder}). While the records flow the driver reads nothing from the outbox table (it follows the nodes'
 * report files), so the table's counters are the node's work, plus one EXPLAIN (ANALYZE, BUFFERS) of the due fetch.
 */
final class BloatRun {

    static final String TABLE = "outbox_record";

    private final BloatBenchmark.Options options;
    private final BenchDatabase database;
    private final JdbcTemplate jdbc;
    private final DueFetchPlan dueFetchPlan;
    private final RecordWriter writer;

    BloatRun(BloatBenchmark.Options options, BenchDatabase database, RecordWriter writer) {
        this.options = options;
        this.database = database;
        this.jdbc = database.jdbc();
        this.dueFetchPlan = new DueFetchPlan(Objects.requireNonNull(jdbc.getDataSource()));
        this.writer = writer;
    }

    /** A steady flow through Outbox.schedule, one record per transaction, at {@code rate}; latency and footprint. */
    Map<String, Object> steady(String phase, boolean deleted, boolean snapshot) throws InterruptedException {
        database.resetForPhase();
        database.checkpoint();
        int seconds = Math.max(1, options.records() / options.rate());
        LatencyProducer producer = new LatencyProducer(writer, options.rate(), seconds, options.aggregates());
        Map<String, Object> result = header("steady", deleted, snapshot);
        result.put("rate", options.rate());
        result.put("seconds", seconds);
        try (NodeGroup nodes = NodeGroup.start(phase, 1, options.nodeOptions(deleted), database)) {
            nodes.awaitBalanced();
            nodes.open();
            TableFootprint before = TableFootprint.read(jdbc, TABLE);
            LatencyProducer.Produced produced;
            @Nullable SnapshotHolder holder = snapshot ? SnapshotHolder.open(database, options.snapshotSeconds())
                    : null;
            // The plan halfway through the flow or the snapshot, whichever ends first: while the snapshot is held.
            long explainAfterMillis = Math.min(seconds, snapshot ? options.snapshotSeconds() : seconds) * 500L;
            java.util.concurrent.CompletableFuture<Map<String, Object>> plan = java.util.concurrent.CompletableFuture
                    .supplyAsync(() -> explain(holder), java.util.concurrent.CompletableFuture.delayedExecutor(
                            explainAfterMillis, java.util.concurrent.TimeUnit.MILLISECONDS));
            try {
                produced = producer.run();
                int total = produced.ids().length;
                result.put("dueFetchPlan", plan.join());
                awaitDrained(nodes, total);
                nodes.stop();
                result.put("snapshotHeld", holder == null ? null : holder.describe());
            } finally {
                if (holder != null) {
                    holder.close();
                }
            }
            int total = produced.ids().length;
            Map<String, Long> firstCall = new HashMap<>();
            long[] span = {Long.MAX_VALUE, Long.MIN_VALUE};
            jdbc.query("SELECT record_id, MIN(handled_at) AS first_call FROM bench_handled GROUP BY record_id", rs -> {
                long at = rs.getLong("first_call");
                firstCall.put(rs.getString("record_id"), at);
                span[0] = Math.min(span[0], at);
                span[1] = Math.max(span[1], at);
            });
            int warmup = (int) Math.min(total, (long) options.rate() * options.warmupSeconds());
            long[] latencies = new long[total - warmup];
            int measured = 0;
            for (int index = warmup; index < total; index++) {
                Long handledAt = firstCall.get(produced.ids()[index]);
                if (handledAt != null) {
                    latencies[measured++] = handledAt - produced.committedAtMicros()[index];
                }
            }
            long lastCommit = Arrays.stream(produced.committedAtMicros()).max().orElse(0);
            long firstCommit = Arrays.stream(produced.committedAtMicros()).min().orElse(0);
            result.put("records", total);
            result.put("achievedWriteRatePerSecond", Stats.rate(total - 1, (lastCommit - firstCommit) / 1e6));
            result.put("handledRatePerSecond", Stats.rate(total, (span[1] - span[0]) / 1e6));
            result.put("lastCommitToLastHandledMs", Stats.millis(span[1] - lastCommit));
            result.put("commitToHandlerLatency", Stats.latencyMillis(Arrays.copyOf(latencies, measured)));
            result.put("producerLateByMs", Stats.latencyMillis(produced.lateByMicros()));
            finish(result, before, total, nodes);
            return result;
        }
    }

    /** A backlog written through Outbox.schedule (100 per transaction), vacuumed, then drained by one node. */
    Map<String, Object> backlog(String phase, boolean deleted, boolean snapshot) throws InterruptedException {
        database.resetForPhase();
        int records = options.backlogRecords();
        long start = System.nanoTime();
        for (long from = 0; from < records; from += BenchmarkDriver.RECORDS_PER_TRANSACTION) {
            writer.writeTransaction(from, Math.min(records, from + BenchmarkDriver.RECORDS_PER_TRANSACTION),
                    options.aggregates());
        }
        System.out.printf("  wrote %,d records in %.1f s%n", records, Stats.seconds(System.nanoTime() - start));
        database.prepareMeasurement(TABLE);
        Map<String, Object> result = header("backlog", deleted, snapshot);
        result.put("records", records);
        try (NodeGroup nodes = NodeGroup.start(phase, 1, options.nodeOptions(deleted), database)) {
            nodes.awaitBalanced();
            TableFootprint before = TableFootprint.read(jdbc, TABLE);
            @Nullable SnapshotHolder holder = snapshot ? SnapshotHolder.open(database, options.snapshotSeconds())
                    : null;
            long doneMicros;
            try {
                long goMicros = nodes.open();
                awaitHandled(nodes, records / 2);
                result.put("dueFetchPlan", explain(holder));
                doneMicros = awaitDrained(nodes, records);
                nodes.stop();
                result.put("snapshotHeld", holder == null ? null : holder.describe());
                result.put("goMicros", goMicros);
            } finally {
                if (holder != null) {
                    holder.close();
                }
            }
            Long firstHandled = jdbc.queryForObject("SELECT MIN(handled_at) FROM bench_handled", Long.class);
            Long lastCompleted = jdbc.queryForObject("SELECT (EXTRACT(EPOCH FROM MAX(completed_at)) * 1000000)::BIGINT"
                    + " FROM " + TABLE, Long.class);
            long from = firstHandled == null ? (long) result.get("goMicros") : firstHandled;
            long to = !deleted && lastCompleted != null ? lastCompleted : doneMicros;
            double seconds = Stats.round((to - from) / 1e6, 3);
            result.put("seconds", seconds);
            result.put("recordsPerSecond", Stats.rate(records, seconds));
            result.put("timing", "first handler call to " + (deleted ? "the driver seeing no NEW record"
                    : "MAX(completed_at)"));
            finish(result, before, records, nodes);
            return result;
        }
    }

    private Map<String, Object> header(String mode, boolean deleted, boolean snapshot) {
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("mode", mode);
        result.put("completedRecords", deleted ? "deleted" : "kept");
        result.put("snapshot", snapshot);
        return result;
    }

    private void finish(Map<String, Object> result, TableFootprint before, long records, NodeGroup nodes) {
        result.put("table", TableFootprint.read(jdbc, TABLE).describeSince(before, records));
        HandlingCheck check = HandlingCheck.run(jdbc, records);
        result.put("checks", check.describe());
        result.put("nodeProcesses", nodes.describe());
    }

    /**
     * EXPLAIN (ANALYZE, BUFFERS) of the due fetch now, from the head of the index and from a floor at the lowest open
     * sequence (as the processor fetches once fetches from the head are slow), and whether the snapshot was still held
     * when they ran.
     */
    private Map<String, Object> explain(@Nullable SnapshotHolder holder) {
        Map<String, Object> plan = new LinkedHashMap<>();
        plan.put("snapshotHeld", holder != null && holder.isHeld());
        plan.put("plan", dueFetchPlan.explain(null));
        List<Long> lowest = jdbc.queryForList(
                "SELECT sequence_no FROM outbox_record WHERE status = 'NEW' ORDER BY sequence_no LIMIT 1", Long.class);
        if (!lowest.isEmpty()) {
            plan.put("planFromFloor", dueFetchPlan.explain(lowest.get(0)));
        }
        return plan;
    }

    /** Follows the nodes' report files (no query on the outbox table) until {@code calls} handler calls. */
    private void awaitHandled(NodeGroup nodes, long calls) throws InterruptedException {
        long deadline = System.nanoTime() + options.drainTimeoutSeconds() * 1_000_000_000L;
        long nextProgress = System.nanoTime() + 10_000_000_000L;
        while (nodes.handlerCalls() < calls) {
            nodes.checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException(nodes.handlerCalls() + " of " + calls + " handler calls within "
                        + options.drainTimeoutSeconds() + " s");
            }
            if (System.nanoTime() > nextProgress) {
                nextProgress += 10_000_000_000L;
                System.out.printf("  %,d handler calls%n", nodes.handlerCalls());
            }
            Thread.sleep(50);
        }
    }

    /** Every record handled and none NEW; returns when the driver saw it. */
    private long awaitDrained(NodeGroup nodes, long records) throws InterruptedException {
        awaitHandled(nodes, records);
        long deadline = System.nanoTime() + options.drainTimeoutSeconds() * 1_000_000_000L;
        while (Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM " + TABLE + " WHERE status = 'NEW')", Boolean.class))) {
            nodes.checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("records still NEW after " + options.drainTimeoutSeconds() + " s");
            }
            Thread.sleep(20);
        }
        return BenchClock.nowMicros();
    }
}
