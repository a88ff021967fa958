package dev.outbox.benchmark;

import static dev.outbox.benchmark.ResultTable.count;
import static dev.outbox.benchmark.ResultTable.perSecond;
import static dev.outbox.benchmark.ResultTable.secs;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The backlog drains ({@code drain1}, {@code drain2}): write the backlog through {@code Outbox.schedule}, prepare the
 * planner statistics, start the node JVMs, let them go at one instant and time the drain. With {@code --warm-drain}
 * the same JVMs then drain a second backlog of the same size (see {@link WarmDrain}): the first drain is the cold one,
 * JIT compilation and class loading included; the second shows the nodes after that.
 */
final class BacklogDrain {

    private static final long PROGRESS_INTERVAL_NANOS = 5_000_000_000L;
    static final String OUTBOX_TABLE = "outbox_record";

    /**
     * When the nodes were let go, and what was counted just before ({@code handlerCalls}: calls of earlier drains);
     * {@code foreign} samples the other processes' CPU until the drain is done.
     */
    record Start(long goMicros, CpuUsage.Snapshot cpu, List<@Nullable NodeReport> reports, long handlerCalls,
            ForeignLoad foreign) {
    }

    /** What the driver saw when the drain was done, read before the nodes are stopped or held. */
    record Drained(Start start, long doneMicros, CpuUsage.Snapshot cpu, Map<String, Object> statements,
            List<List<Number>> progress, Map<String, Object> foreignLoad) {
    }

    private final BenchmarkOptions options;
    private final BenchDatabase database;
    private final JdbcTemplate jdbc;
    private final RecordWriter writer;
    private final ResultTable table;
    private boolean checkFailed;
    private boolean measurementFailed;

    BacklogDrain(BenchmarkOptions options, BenchDatabase database, RecordWriter writer, ResultTable table) {
        this.options = options;
        this.database = database;
        this.jdbc = database.jdbc();
        this.writer = writer;
        this.table = table;
    }

    /** A drain's check (duplicates, order, missing) failed. */
    boolean checkFailed() {
        return checkFailed;
    }

    /** A warm drain failed (a cold one that fails throws). */
    boolean measurementFailed() {
        return measurementFailed;
    }

    Map<String, Object> run(String phase, int nodeCount) throws InterruptedException {
        database.resetForPhase();
        BenchmarkOptions.Statistics statistics = options.statistics();
        boolean keepStatistics = statistics != BenchmarkOptions.Statistics.ANALYZED;
        if (keepStatistics) {
            database.autovacuum(OUTBOX_TABLE, false);
        }
        try {
            return run(phase, nodeCount, statistics);
        } finally {
            if (keepStatistics) {
                database.autovacuum(OUTBOX_TABLE, true);
            }
        }
    }

    private Map<String, Object> run(String phase, int nodeCount, BenchmarkOptions.Statistics statistics)
            throws InterruptedException {
        int records = options.records();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("nodes", nodeCount);
        writeBacklog(phase, statistics, result);
        boolean warm = options.warmDrain();
        try (NodeGroup nodes = NodeGroup.start(phase, nodeCount, options, database, warm)) {
            nodes.awaitBalanced();
            Start start = start(nodes, nodes::open, 0, List.of());
            System.out.println("  partitions balanced; go");
            Drained drained = awaitDrained(nodes, records, start);
            result.put("statements", drained.statements());
            // bench_handled is complete once the nodes have stopped, or are held with every call written
            if (!warm) {
                nodes.stop();
                result.putAll(timed(drained, records, nodeCount, ""));
            } else {
                List<NodeReport> held = nodes.hold();
                result.putAll(timed(drained, records, nodeCount, ""));
                result.put("warm", new WarmDrain(this, database, options).run(phase, nodeCount, statistics, nodes,
                        held));
            }
            nodes.stop();
            result.put("nodeProcesses", nodes.describe());
            return result;
        }
    }

    /** The table row of a drain with {@code nodeCount} nodes (the ratios are filled in by that name). */
    static String label(int nodeCount) {
        return "drain, " + nodeCount + (nodeCount == 1 ? " instance" : " instances");
    }

    /** Notes a warm drain's failure: the cold drain's figures stand, the run's exit status is 1. */
    void warmDrainFailed(String label, RuntimeException e, Map<String, Object> result) {
        measurementFailed = true;
        System.out.println("  FAILED: " + e);
        table.row(label, "FAILED: " + e.getMessage(), "", "");
        result.put("error", String.valueOf(e));
    }

    /**
     * Writes {@code --records} records through {@code Outbox.schedule}, 100 per transaction, prepares the planner
     * statistics as {@code statistics} says and checks them; puts {@code statistics}, {@code records} and
     * {@code write} into {@code result}.
     */
    void writeBacklog(String phase, BenchmarkOptions.Statistics statistics, Map<String, Object> result) {
        int records = options.records();
        if (statistics == BenchmarkOptions.Statistics.STALE) {
            takeStaleStatistics(records);
        }
        long start = System.nanoTime();
        for (long from = 0; from < records; from += BenchmarkDriver.RECORDS_PER_TRANSACTION) {
            writer.writeTransaction(from, Math.min(records, from + BenchmarkDriver.RECORDS_PER_TRANSACTION),
                    options.aggregates());
        }
        double writeSeconds = Stats.seconds(System.nanoTime() - start);
        double writeRate = Stats.rate(records, writeSeconds);
        System.out.printf("  wrote %,d records through Outbox.schedule in %.1f s (%,.0f records/s)%n", records,
                writeSeconds, writeRate);
        if (statistics == BenchmarkOptions.Statistics.ANALYZED) {
            database.prepareMeasurement(OUTBOX_TABLE);
        } else {
            database.checkpoint();
        }
        result.put("statistics", checkStatistics(statistics, records));
        result.put("records", records);
        Map<String, Object> write = new LinkedHashMap<>();
        write.put("api", "Outbox.schedule in Spring transactions (TransactionTemplate), single thread");
        write.put("recordsPerTransaction", BenchmarkDriver.RECORDS_PER_TRANSACTION);
        write.put("seconds", writeSeconds);
        write.put("recordsPerSecond", writeRate);
        result.put("write", write);
        table.row("write: Outbox.schedule, " + BenchmarkDriver.RECORDS_PER_TRANSACTION + "/tx (" + phase + ")",
                count(records) + " in " + secs(writeSeconds) + ": " + perSecond(writeRate), "", "");
    }

    /**
     * Statistics taken while NEW rows were rare: the backlog's rows written and set COMPLETED, analyzed, then
     * TRUNCATE, which leaves pg_statistic as it was. The backlog written next finds them, autovacuum being held off.
     */
    private void takeStaleStatistics(int records) {
        for (long from = 0; from < records; from += BenchmarkDriver.RECORDS_PER_TRANSACTION) {
            writer.writeTransaction(from, Math.min(records, from + BenchmarkDriver.RECORDS_PER_TRANSACTION),
                    options.aggregates());
        }
        jdbc.update("UPDATE " + OUTBOX_TABLE + " SET status = 'COMPLETED', completed_at = now()");
        jdbc.execute("ANALYZE " + OUTBOX_TABLE);
        database.emptyOutbox();
    }

    /**
     * Reads from pg_stats and the planner's estimate that the outbox table's statistics are what {@code statistics}
     * says, prints one line saying so, and fails the measurement when they are not.
     */
    private Map<String, Object> checkStatistics(BenchmarkOptions.Statistics statistics, int records) {
        BenchDatabase.StatusStatistics seen = database.statusStatistics(OUTBOX_TABLE);
        double newFrequency = seen.frequencyOf("NEW");
        String pgStats = seen.mostCommonValues() == null ? "no statistics for status"
                : "status " + seen.mostCommonValues() + " at " + seen.mostCommonFrequencies();
        String claim = switch (statistics) {
            case ANALYZED -> "analyzed: NEW is nearly every row";
            case NONE -> "none: the table was never analyzed";
            case STALE -> "stale: NEW rows are rare";
        };
        boolean asClaimed = switch (statistics) {
            case ANALYZED -> newFrequency >= 0.99;
            case NONE -> seen.mostCommonValues() == null && seen.mostCommonFrequencies() == null;
            case STALE -> seen.frequencyOf("COMPLETED") >= 0.99 && newFrequency < 0.01
                    && seen.plannedNewRows() <= Math.max(1, records / 100);
        };
        String line = String.format("statistics %s (pg_stats: %s; the planner expects %,d NEW rows of %,d)", claim,
                pgStats, seen.plannedNewRows(), records);
        if (!asClaimed) {
            throw new IllegalStateException("the outbox table's statistics are not as --statistics="
                    + statistics.option() + " claims: " + line);
        }
        System.out.println("  " + line);
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("mode", statistics.option());
        described.put("pgStatsStatusMostCommonValues", seen.mostCommonValues());
        described.put("pgStatsStatusMostCommonFrequencies", seen.mostCommonFrequencies());
        described.put("plannedNewRows", seen.plannedNewRows());
        described.put("autovacuumHeldOff", statistics != BenchmarkOptions.Statistics.ANALYZED);
        return described;
    }

    /**
     * Starts sampling the other processes' CPU, reads the nodes' CPU and reports, then lets them go ({@code letGo}
     * returns when). {@code handlerCalls}: the calls they made before; {@code held}: their reports while held, for one
     * whose file cannot be read just now.
     */
    Start start(NodeGroup nodes, LongSupplier letGo, long handlerCalls, List<NodeReport> held) {
        ForeignLoad foreign = ForeignLoad.start(database.name(), NodeProcess::runningPids);
        try {
            CpuUsage.Snapshot cpu = CpuUsage.take(nodes.nodes());
            List<@Nullable NodeReport> reports = new ArrayList<>(nodes.reports());
            for (int index = 0; index < reports.size() && index < held.size(); index++) {
                if (reports.get(index) == null) {
                    reports.set(index, held.get(index));
                }
            }
            return new Start(letGo.getAsLong(), cpu, reports, handlerCalls, foreign);
        } catch (RuntimeException e) {
            foreign.close();
            throw e;
        }
    }

    /**
     * Waits until the nodes have made {@code records} handler calls since {@code start} and no record is NEW; notes
     * [seconds since go, handler calls] every 5 s; then reads the nodes' CPU and statements.
     */
    Drained awaitDrained(NodeGroup nodes, long records, Start start) throws InterruptedException {
        try {
            return drained(nodes, records, start);
        } finally {
            start.foreign().close(); // stops sampling (the summary was taken when drained)
        }
    }

    private Drained drained(NodeGroup nodes, long records, Start start) throws InterruptedException {
        List<List<Number>> progress = new ArrayList<>();
        long deadline = System.nanoTime() + options.drainTimeoutSeconds() * 1_000_000_000L;
        long nextProgress = System.nanoTime() + PROGRESS_INTERVAL_NANOS;
        while (System.nanoTime() < deadline) {
            nodes.checkAlive();
            long calls = nodes.handlerCalls() - start.handlerCalls();
            if (calls >= records && !database.newRecordsLeft()) {
                long doneMicros = BenchClock.nowMicros();
                CpuUsage.Snapshot cpu = CpuUsage.take(nodes.nodes());
                Map<String, Object> statements = DrainStatements.between(start.reports(), nodes.reports(), records);
                return new Drained(start, doneMicros, cpu, statements, progress, start.foreign().summary());
            }
            if (System.nanoTime() >= nextProgress) {
                nextProgress += PROGRESS_INTERVAL_NANOS;
                double elapsed = (BenchClock.nowMicros() - start.goMicros()) / 1e6;
                System.out.printf("  %5.0f s: %,d handler calls%n", elapsed, calls);
                progress.add(List.of(Stats.round(elapsed, 1), calls));
            }
            Thread.sleep(calls >= records ? 20 : 50);
        }
        throw new IllegalStateException("not drained within " + options.drainTimeoutSeconds() + " s; status: "
                + database.statusCounts());
    }

    /**
     * The drain's time, rate and checks, from {@code bench_handled} and {@code outbox_record}: call it once every
     * handler call is written there (the nodes stopped, or held with nothing pending). Adds the table row.
     */
    Map<String, Object> timed(Drained drained, int records, int nodeCount, String labelSuffix) {
        long goMicros = drained.start().goMicros();
        long doneMicros = drained.doneMicros();
        Long firstHandled = jdbc.queryForObject("SELECT MIN(handled_at) FROM bench_handled", Long.class);
        Long lastCompleted = jdbc.queryForObject("SELECT (EXTRACT(EPOCH FROM MAX(completed_at)) * 1000000)::BIGINT"
                + " FROM outbox_record", Long.class);
        Map<String, Long> statusCounts = database.statusCounts();
        long from = firstHandled == null ? goMicros : firstHandled;
        // The library's own time of the last completion when it kept the rows; what the driver saw otherwise.
        boolean allKept = statusCounts.getOrDefault("COMPLETED", 0L) == records && lastCompleted != null;
        long to = allKept ? lastCompleted : doneMicros;
        double seconds = Stats.round((to - from) / 1e6, 3);
        double rate = Stats.rate(records, seconds);
        HandlingCheck check = HandlingCheck.run(jdbc, records);
        checkFailed |= !check.passed();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("seconds", seconds);
        result.put("recordsPerSecond", rate);
        result.put("timing", "from the first handler call (MIN(bench_handled.handled_at)) to "
                + (allKept ? "the last completion (MAX(outbox_record.completed_at))"
                        : "the driver seeing no NEW record left"));
        result.put("goToFirstCallMs", Stats.millis(from - goMicros));
        result.put("lastCompletionToDriverSawDoneMs",
                lastCompleted == null ? null : Stats.millis(doneMicros - lastCompleted));
        result.put("statusCounts", statusCounts);
        result.put("cpu", CpuUsage.between(drained.start().cpu(), drained.cpu()));
        result.put("foreignLoadDuringDrain", drained.foreignLoad());
        result.put("progress", drained.progress());
        result.put("checks", check.describe());
        String split = nodeCount > 1 ? " (" + perInstance(check.callsPerInstance()) + ")" : "";
        table.row(label(nodeCount) + labelSuffix,
                count(records) + " in " + secs(seconds) + ": " + perSecond(rate) + split, "", check.summary());
        System.out.printf("  drained %,d records in %.1f s (%,.0f records/s); %s%n", records, seconds, rate,
                check.summary());
        return result;
    }

    private static String perInstance(Map<String, Long> calls) {
        StringBuilder text = new StringBuilder();
        calls.forEach((id, count) -> text.append(text.length() == 0 ? "" : " / ").append(id).append(' ')
                .append(count(count)));
        return text.toString();
    }
}
