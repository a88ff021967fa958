package dev.outbox.benchmark;

import static dev.outbox.benchmark.ResultTable.count;
import static dev.outbox.benchmark.ResultTable.perSecond;
import static dev.outbox.benchmark.ResultTable.secs;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.outbox.OutboxRecord;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Runs every measurement once, in this order, each on an emptied outbox table:
 *
 * <ol>
 *   <li>{@code dbLimit}: the plain-JDBC reference on a copy of the outbox table;</li>
 *   <li>{@code drain1}, {@code drain2}: write the backlog through {@code Outbox.schedule}, then drain it with one and
 *       with two node JVMs, cold and (unless {@code --warm-drain=false}) warm: see {@link BacklogDrain};</li>
 *   <li>{@code latency1}, {@code latency2}: a fixed-rate producer with one and with two nodes;</li>
 *   <li>{@code idle}: one node with nothing to do.</li>
 * </ol>
 *
 * Prints a table, writes the JSON file, and drops its database whatever happens.
 */
final class BenchmarkDriver {

    static final int RECORDS_PER_TRANSACTION = 100;
    static final int REFERENCE_UPDATE_BATCH = 1_000;
    private static final long LATENCY_DRAIN_DEADLINE_SECONDS = 120;

    /** How the run ended: 0 all good, 1 a measurement failed, 3 a check failed. */
    record Outcome(int exitCode, Path out, Map<String, Object> result) {
    }

    private final BenchmarkOptions options;
    private final BenchDatabase database;
    private final JdbcTemplate jdbc;
    private final RecordWriter writer;
    private final ResultTable table = new ResultTable();
    private final BacklogDrain drains;
    /** Set by the shutdown hook (Ctrl-C, SIGTERM): whatever fails after that is a consequence, not a finding. */
    private static volatile boolean stopped;

    static boolean isStopped() {
        return stopped;
    }

    private boolean measurementFailed;
    private boolean checkFailed;

    private BenchmarkDriver(BenchmarkOptions options, BenchDatabase database, RecordWriter writer) {
        this.options = options;
        this.database = database;
        this.jdbc = database.jdbc();
        this.writer = writer;
        this.drains = new BacklogDrain(options, database, writer, table);
    }

    static Outcome run(BenchmarkOptions options) throws InterruptedException {
        long started = System.nanoTime();
        quietLogging();
        System.out.println("Outbox benchmark: " + options.records() + " records over " + options.aggregates()
                + " aggregates; latency " + options.latencyRate() + "/s for " + options.latencySeconds()
                + " s; idle " + options.idleSeconds() + " s");
        Map<String, Object> result = new LinkedHashMap<>();
        Map<String, Object> environment = environment();
        result.put("environment", environment);
        result.put("parameters", options.describe());
        Map<String, Object> measurements = new LinkedHashMap<>();
        BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password());
        System.out.println("Database " + database.name() + " created; node logs in " + options.logDir());
        Thread cleanup = new Thread(() -> {
            stopped = true;
            NodeProcess.killAll();
            database.close();
            System.out.println("Benchmark stopped: nodes killed, database " + database.name() + " dropped");
        }, "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        BenchmarkDriver driver = null;
        try {
            // The write side first: its Spring Boot logging setup also quiets Liquibase's output.
            try (RecordWriter writer = new RecordWriter(database.dataSource())) {
                database.initialize();
                environment.put("postgres", database.serverVersion());
                environment.put("postgresSettings", settings(database.jdbc()));
                result.put("nodeSettings", nodeSettings(options, database));
                driver = new BenchmarkDriver(options, database, writer);
                driver.measureAll(measurements);
            }
        } finally {
            database.close();
            try {
                Runtime.getRuntime().removeShutdownHook(cleanup);
            } catch (IllegalStateException e) {
                // already shutting down: the hook runs anyway
            }
        }
        if (stopped) {
            throw new IllegalStateException("stopped by a signal");
        }
        result.put("measurements", measurements);
        double totalSeconds = Stats.seconds(System.nanoTime() - started);
        result.put("totalSeconds", totalSeconds);
        ResultFile.write(options.out(), result);
        System.out.println();
        driver.table.print(System.out);
        System.out.println();
        System.out.println("Total run time " + Math.round(totalSeconds) + " s; results in " + options.out());
        boolean measurementFailed = driver.measurementFailed || driver.drains.measurementFailed();
        boolean checkFailed = driver.checkFailed || driver.drains.checkFailed();
        int exitCode = measurementFailed ? 1 : checkFailed ? 3 : 0;
        return new Outcome(exitCode, options.out(), result);
    }

    private void measureAll(Map<String, Object> measurements) throws InterruptedException {
        measurements.put("dbLimit", guarded("dbLimit", this::reference));
        measurements.put("drain1", guarded("drain1", () -> drains.run("drain-1", 1)));
        measurements.put("drain2", guarded("drain2", () -> drains.run("drain-2", 2)));
        measurements.put("latency1", guarded("latency1", () -> latency("latency-1", 1)));
        measurements.put("latency2", guarded("latency2", () -> latency("latency-2", 2)));
        measurements.put("idle", guarded("idle", this::idle));
        addRatios(measurements);
    }

    private interface Measurement {
        Map<String, Object> run() throws InterruptedException;
    }

    /**
     * Runs a measurement; a failure is reported and the next one runs. Also notes how much CPU processes outside the
     * benchmark took meanwhile (see {@link ForeignLoad}) and flags the measurement when that was more than a little.
     */
    private Map<String, Object> guarded(String name, Measurement measurement) throws InterruptedException {
        if (stopped) {
            throw new IllegalStateException("stopped by a signal");
        }
        System.out.println();
        System.out.println("== " + name);
        Map<String, Object> result;
        try (ForeignLoad foreign = ForeignLoad.start(database.name(), NodeProcess::runningPids)) {
            try {
                result = measurement.run();
            } catch (RuntimeException e) {
                if (stopped) {
                    throw e;
                }
                measurementFailed = true;
                System.out.println("  FAILED: " + e);
                table.row(name, "FAILED: " + e.getMessage(), "", "");
                result = new LinkedHashMap<>();
                result.put("error", String.valueOf(e));
            }
            Map<String, Object> load = foreign.summary();
            result.put("foreignLoad", load);
            if (load.get("percentOfMachine") instanceof Double percent && percent > ForeignLoad.WARN_PERCENT
                    && load.get("cpuSeconds") instanceof Double seconds && seconds > ForeignLoad.WARN_CPU_SECONDS) {
                String warning = name + ": processes outside the benchmark used " + percent + "% of the machine's CPU"
                        + " meanwhile (" + load.get("cpuSeconds") + " CPU s; see foreignLoad in the JSON)";
                System.out.println("  WARNING " + warning);
                table.warning(warning);
            }
        }
        return result;
    }

    // ---- 3. DB-limit reference ---------------------------------------------------------------------------------

    /**
     * Plain JDBC, one thread, on {@code bench_reference_record} (created {@code LIKE outbox_record INCLUDING ALL}):
     * insert the same rows as the library writes, 100 per transaction as one JDBC batch; then set them COMPLETED with
     * one {@code UPDATE ... WHERE id = ANY(?)} of 1,000 ids per statement (auto-commit).
     */
    private Map<String, Object> reference() throws InterruptedException {
        String referenceTable = BenchSchema.REFERENCE_TABLE;
        database.resetForPhase();
        jdbc.execute("DROP TABLE IF EXISTS " + referenceTable);
        jdbc.execute("CREATE TABLE " + referenceTable + " (LIKE outbox_record INCLUDING ALL)");
        try {
            int records = options.records();
            List<OutboxRecord> rows = new ArrayList<>(records);
            for (int index = 0; index < records; index++) {
                rows.add(writer.build(index, options.aggregates()));
            }
            long insertNanos;
            long updateNanos;
            long updated = 0;
            Map<String, Object> claimComplete;
            try (Connection connection = database.dataSource().getConnection()) {
                insertNanos = ReferenceInsert.insert(connection, referenceTable, rows, RECORDS_PER_TRANSACTION);
                System.out.printf("  inserted %,d rows in %.1f s%n", records, insertNanos / 1e9);
                database.prepareMeasurement(referenceTable);
                long start = System.nanoTime();
                try (PreparedStatement update = connection.prepareStatement("UPDATE " + referenceTable
                        + " SET status = 'COMPLETED', completed_at = ? WHERE id = ANY(?)")) {
                    for (int from = 0; from < records; from += REFERENCE_UPDATE_BATCH) {
                        List<OutboxRecord> batch = rows.subList(from, Math.min(records, from + REFERENCE_UPDATE_BATCH));
                        Array ids = connection.createArrayOf("varchar",
                                batch.stream().map(OutboxRecord::getId).toArray());
                        update.setObject(1, OffsetDateTime.now(ZoneOffset.UTC));
                        update.setArray(2, ids);
                        updated += update.executeUpdate();
                        ids.free();
                    }
                }
                updateNanos = System.nanoTime() - start;
                claimComplete = ClaimCompleteReference.run(connection, referenceTable, rows,
                        () -> database.prepareMeasurement(referenceTable));
            }
            if (updated != records) {
                throw new IllegalStateException("the reference update changed " + updated + " rows, not " + records);
            }
            double insertSeconds = Stats.seconds(insertNanos);
            double updateSeconds = Stats.seconds(updateNanos);
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("table", referenceTable + " (LIKE outbox_record INCLUDING ALL)");
            result.put("records", records);
            result.put("insertRowsPerTransaction", RECORDS_PER_TRANSACTION);
            result.put("insertSeconds", insertSeconds);
            result.put("insertRecordsPerSecond", Stats.rate(records, insertSeconds));
            result.put("updateIdsPerStatement", REFERENCE_UPDATE_BATCH);
            result.put("updateSeconds", updateSeconds);
            result.put("updateRecordsPerSecond", Stats.rate(records, updateSeconds));
            table.row("DB limit: JDBC insert, " + RECORDS_PER_TRANSACTION + " rows/tx",
                    count(records) + " in " + secs(insertSeconds) + ": " + perSecond(Stats.rate(records, insertSeconds)),
                    "", "");
            table.row("DB limit: JDBC update, " + count(REFERENCE_UPDATE_BATCH) + " ids/statement",
                    count(records) + " in " + secs(updateSeconds) + ": " + perSecond(Stats.rate(records, updateSeconds)),
                    "1.00×", "");
            System.out.printf("  updated %,d rows in %.1f s%n", records, updateNanos / 1e9);
            result.put("claimComplete", claimComplete);
            table.row("DB limit: JDBC claim + complete, " + ClaimCompleteReference.BATCH + " rows/tx",
                    count(records) + " in " + secs((Double) claimComplete.get("seconds")) + ": "
                            + perSecond((Double) claimComplete.get("recordsPerSecond")), "", "");
            System.out.printf("  claim + complete: %,.0f records/s%n", claimComplete.get("recordsPerSecond"));
            return result;
        } catch (SQLException e) {
            throw new IllegalStateException("reference: " + e.getMessage(), e);
        } finally {
            jdbc.execute("DROP TABLE IF EXISTS " + referenceTable);
        }
    }

    // ---- 4. latency ----------------------------------------------------------------------------------------------

    /**
     * commit→handler latency: the handler's {@link BenchClock} at entry (first call of the record) minus the producer's
     * {@link BenchClock} right after the record's transaction committed. Kept in the driver's memory and joined with
     * {@code bench_handled} at the end, so that measuring adds no write to the measured load. Records scheduled in the
     * first {@code warmup-seconds} are left out.
     */
    private Map<String, Object> latency(String phase, int nodeCount) throws InterruptedException {
        database.resetForPhase();
        database.checkpoint();
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("nodes", nodeCount);
        result.put("rate", options.latencyRate());
        result.put("seconds", options.latencySeconds());
        result.put("warmupSeconds", options.warmupSeconds());
        LatencyProducer producer = new LatencyProducer(writer, options.latencyRate(), options.latencySeconds(),
                options.aggregates());
        try (NodeGroup nodes = NodeGroup.start(phase, nodeCount, options, database)) {
            nodes.awaitBalanced();
            nodes.open();
            Thread.sleep(1_000);
            System.out.printf("  partitions balanced; producing %,d records/s for %d s%n", options.latencyRate(),
                    options.latencySeconds());
            LatencyProducer.Produced produced;
            BacklogSampler backlog = new BacklogSampler(jdbc);
            CpuUsage.Snapshot cpuBefore = CpuUsage.take(nodes.nodes());
            CpuUsage.Snapshot cpuAfter;
            try {
                backlog.start();
                produced = producer.run();
                cpuAfter = CpuUsage.take(nodes.nodes());
                long deadline = System.nanoTime() + LATENCY_DRAIN_DEADLINE_SECONDS * 1_000_000_000L;
                while (database.newRecordsLeft()) {
                    nodes.checkAlive();
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("records still NEW " + LATENCY_DRAIN_DEADLINE_SECONDS
                                + " s after the producer stopped: " + database.statusCounts());
                    }
                    Thread.sleep(50);
                }
            } finally {
                backlog.close();
            }
            nodes.stop();
            result.put("nodeProcesses", nodes.describe());
            Map<String, Long> firstCall = new HashMap<>();
            jdbc.query("SELECT record_id, MIN(handled_at) AS first_call FROM bench_handled GROUP BY record_id",
                    rs -> {
                        firstCall.put(rs.getString("record_id"), rs.getLong("first_call"));
                    });
            int total = produced.ids().length;
            int warmupRecords = (int) Math.min(total, (long) options.latencyRate() * options.warmupSeconds());
            long[] latencies = new long[total - warmupRecords];
            int measured = 0;
            int unhandled = 0;
            int negative = 0;
            for (int index = warmupRecords; index < total; index++) {
                Long handledAt = firstCall.get(produced.ids()[index]);
                if (handledAt == null) {
                    unhandled++;
                    continue;
                }
                long latency = handledAt - produced.committedAtMicros()[index];
                negative += latency < 0 ? 1 : 0;
                latencies[measured++] = latency;
            }
            Map<String, Object> stats = Stats.latencyMillis(java.util.Arrays.copyOf(latencies, measured));
            long firstCommit = java.util.Arrays.stream(produced.committedAtMicros()).min().orElse(0);
            long lastCommit = java.util.Arrays.stream(produced.committedAtMicros()).max().orElse(0);
            double achievedRate = Stats.rate(total - 1, (lastCommit - firstCommit) / 1e6);
            HandlingCheck check = HandlingCheck.run(jdbc, total);
            checkFailed |= !check.passed();
            result.put("recordsProduced", total);
            result.put("recordsMeasured", measured);
            result.put("commitToHandlerLatency", stats);
            result.put("handledBeforeCommitReturned", negative);
            result.put("achievedRatePerSecond", achievedRate);
            result.put("producerLateByMs", Stats.latencyMillis(produced.lateByMicros()));
            result.put("cpu", CpuUsage.between(cpuBefore, cpuAfter));
            result.put("maxBacklog", backlog.max());
            result.put("backlogSamples", backlog.samples());
            result.put("backlogSampleFailures", backlog.failures());
            result.put("checks", check.describe());
            table.row("latency, " + nodeCount + (nodeCount == 1 ? " instance" : " instances") + ", "
                            + count(options.latencyRate()) + "/s",
                    "p50 " + ms(stats.get("p50Ms")) + ", p95 " + ms(stats.get("p95Ms")) + ", p99 "
                            + ms(stats.get("p99Ms")) + ", max " + ms(stats.get("maxMs")) + "; backlog max "
                            + count(backlog.max()) + " NEW",
                    "", check.summary());
            System.out.printf("  latency p50 %s, p95 %s, p99 %s, max %s; max backlog %,d; %s%n",
                    ms(stats.get("p50Ms")), ms(stats.get("p95Ms")), ms(stats.get("p99Ms")), ms(stats.get("maxMs")),
                    backlog.max(), check.summary());
            if (unhandled > 0) {
                System.out.println("  " + unhandled + " measured records have no handler call");
            }
            return result;
        }
    }

    // ---- 5. idle cost ----------------------------------------------------------------------------------------------

    /**
     * One node with nothing to do: the JDBC statements it executes through its data source (every statement of the
     * library: polling, heartbeats, rebalancing), counted in the node by type, per second over {@code idle-seconds}
     * after {@code settle-seconds}, and the transactions the database counted for it over the same window
     * (pg_stat_database's xact_commit + xact_rollback: what the database pays, pool validations and autocommit
     * reads included). Idle backends report their counts up to 10 s late, hence the settle time.
     */
    private Map<String, Object> idle() throws InterruptedException {
        database.resetForPhase();
        try (NodeGroup nodes = NodeGroup.start("idle", 1, options, database)) {
            nodes.awaitBalanced();
            nodes.open();
            Thread.sleep(options.settleSeconds() * 1_000L);
            NodeReport before = awaitReport(nodes);
            long transactionsBefore = database.transactionCount();
            CpuUsage.Snapshot cpuBefore = CpuUsage.take(nodes.nodes());
            System.out.printf("  watching the idle node for %d s%n", options.idleSeconds());
            Thread.sleep(options.idleSeconds() * 1_000L);
            NodeReport after = awaitReport(nodes);
            long transactionsAfter = database.transactionCount();
            CpuUsage.Snapshot cpuAfter = CpuUsage.take(nodes.nodes());
            nodes.checkAlive();
            nodes.stop();
            double window = (after.writtenAtMicros() - before.writtenAtMicros()) / 1e6;
            long statements = after.statementsTotal() - before.statementsTotal();
            double perSecond = Stats.round(statements / window, 2);
            Double commitsPerSecond = transactionsBefore < 0 || transactionsAfter < 0 ? null
                    : Stats.round((transactionsAfter - transactionsBefore) / window, 2);
            Map<String, Object> byType = new LinkedHashMap<>();
            after.statements().entrySet().stream()
                    .map(entry -> Map.entry(entry.getKey(),
                            entry.getValue() - before.statements().getOrDefault(entry.getKey(), 0L)))
                    .filter(entry -> entry.getValue() > 0)
                    .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                    .forEach(entry -> byType.put(entry.getKey(), Stats.round(entry.getValue() / window, 2)));
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("method", "commitsPerSecond: the database's transactions (pg_stat_database xact_commit +"
                    + " xact_rollback, read before and after the window; idle backends report up to 10 s late), pool"
                    + " validations and autocommit reads included; queriesPerSecond: JDBC statements executed through"
                    + " the node's DataSource (a counting wrapper installed by a BeanPostProcessor), commits and"
                    + " rollbacks included; pg_stat_statements is not used");
            result.put("windowSeconds", Stats.round(window, 3));
            result.put("statements", statements);
            result.put("commitsPerSecond", commitsPerSecond);
            result.put("queriesPerSecond", perSecond);
            result.put("queriesPerSecondByType", byType);
            double borrowsPerSecond = Stats.round((after.connectionsBorrowed() - before.connectionsBorrowed()) / window,
                    2);
            result.put("connectionsBorrowedPerSecond", borrowsPerSecond);
            result.put("note", "HikariCP validates a connection idle for over 500 ms when it is borrowed"
                    + " (isValid(): an empty query on PostgreSQL), below the counter: up to connectionsBorrowedPerSecond"
                    + " more round trips per second");
            result.put("cpu", CpuUsage.between(cpuBefore, cpuAfter));
            result.put("nodeProcesses", nodes.describe());
            StringBuilder types = new StringBuilder();
            byType.forEach((type, rate) -> types.append(types.length() == 0 ? "" : ", ").append(type).append(' ')
                    .append(rate));
            String commits = commitsPerSecond == null ? "commits/s unknown (pg_stat_database not readable)"
                    : commitsPerSecond + " commits/s (pg_stat_database: xact_commit + xact_rollback)";
            table.row("idle, 1 instance, " + options.idleSeconds() + " s", commits + "; " + perSecond
                    + " statements/s (" + types + "); " + borrowsPerSecond + " pool borrows/s", "", "");
            System.out.printf("  %s; %.2f statements/s: %s; %.2f pool borrows/s%n", commits, perSecond, types,
                    borrowsPerSecond);
            return result;
        }
    }

    private static NodeReport awaitReport(NodeGroup nodes) throws InterruptedException {
        for (int attempt = 0; attempt < 100; attempt++) {
            NodeReport report = nodes.reports().get(0);
            if (report != null && BenchClock.nowMicros() - report.writtenAtMicros() < 1_000_000) {
                return report;
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException("the idle node wrote no report for 10 s");
    }

    // ---- reporting -------------------------------------------------------------------------------------------------

    /**
     * Each drain rate, cold and warm, as a fraction of the reference's update rate and of its claim + complete loop.
     */
    @SuppressWarnings("unchecked")
    private void addRatios(Map<String, Object> measurements) {
        Map<String, Object> dbLimit = (Map<String, Object>) measurements.get("dbLimit");
        Object reference = dbLimit.get("updateRecordsPerSecond");
        Object claimLoop = dbLimit.get("claimComplete") instanceof Map<?, ?> claim ? claim.get("recordsPerSecond")
                : null;
        for (int nodeCount = 1; nodeCount <= 2; nodeCount++) {
            Map<String, Object> measurement = (Map<String, Object>) measurements.get("drain" + nodeCount);
            addRatios(measurement, BacklogDrain.label(nodeCount), reference, claimLoop);
            if (measurement.get("warm") instanceof Map<?, ?> warm) {
                addRatios((Map<String, Object>) warm, BacklogDrain.label(nodeCount) + ", warm", reference, claimLoop);
            }
        }
    }

    private void addRatios(Map<String, Object> measurement, String row, @Nullable Object reference,
            @Nullable Object claimLoop) {
        if (reference instanceof Double limit && limit > 0
                && measurement.get("recordsPerSecond") instanceof Double rate) {
            double ratio = Stats.round(rate / limit, 3);
            measurement.put("ratioToDbLimitUpdate", ratio);
            String text = String.format("%.2f×", ratio);
            if (claimLoop instanceof Double loop && loop > 0) {
                double claimRatio = Stats.round(rate / loop, 3);
                measurement.put("ratioToClaimComplete", claimRatio);
                text += String.format(" (%.2f× claim + complete)", claimRatio);
            }
            table.ratio(row, text);
        }
    }

    /**
     * The console is for the benchmark's own lines: WARN and above only, also for what logs before the write side's
     * Spring Boot context sets {@code logging.level.root=WARN} (the connection pool, Liquibase).
     */
    private static void quietLogging() {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
        }
    }

    private static Map<String, Object> environment() {
        Map<String, Object> environment = new LinkedHashMap<>();
        environment.put("nproc", Runtime.getRuntime().availableProcessors());
        environment.put("jdk", System.getProperty("java.version") + " (" + System.getProperty("java.vm.name") + ", "
                + System.getProperty("java.vendor") + ")");
        environment.put("os", System.getProperty("os.name") + " " + System.getProperty("os.version") + " "
                + System.getProperty("os.arch"));
        environment.put("startedAt", Instant.now().toString());
        return environment;
    }

    private static Map<String, Object> settings(JdbcTemplate jdbc) {
        Map<String, Object> settings = new LinkedHashMap<>();
        for (String name : List.of("synchronous_commit", "fsync", "shared_buffers", "max_connections",
                "wal_level", "checkpoint_timeout", "max_wal_size", "autovacuum")) {
            settings.put(name, jdbc.queryForObject("SELECT current_setting(?)", String.class, name));
        }
        return settings;
    }

    private static Map<String, Object> nodeSettings(BenchmarkOptions options, BenchDatabase database) {
        Map<String, Object> settings = new LinkedHashMap<>();
        settings.put("outbox", "the library's defaults except outbox.instance.id; see properties");
        settings.put("jvmOptions", options.nodeJvmOptions());
        List<String> properties = NodeGroup.nodeProperties("node-N", Path.of("<phase>.go"),
                options.warmDrain() ? Path.of("<drain phase>.hold") : null, Path.of("<phase>-node-N.report.json"),
                options, database).stream()
                .map(property -> property.startsWith("spring.datasource.password=")
                        ? "spring.datasource.password=<hidden>" : property)
                .toList();
        settings.put("properties", properties);
        settings.put("handler", "no-op; notes each call in memory, a writer thread inserts them into the UNLOGGED"
                + " table bench_handled every 100 ms as one JDBC batch per transaction on its own connection");
        settings.put("startGate", "the fetches return nothing until the driver's go file exists (a proxy of the"
                + " library's RecordStore bean); then the processor is woken. With --warm-drain the drains' nodes also"
                + " watch bench.hold-file: while it exists the fetches return nothing again (latency and idle nodes"
                + " have no hold file)");
        return settings;
    }

    private static String ms(@Nullable Object millis) {
        return millis instanceof Double value ? String.format(value < 100 ? "%,.1f ms" : "%,.0f ms", value) : "n/a";
    }
}
