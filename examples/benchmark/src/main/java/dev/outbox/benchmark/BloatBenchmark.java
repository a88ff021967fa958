package dev.outbox.benchmark;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.LoggerFactory;

/**
 * The bloat benchmark ({@code java -jar outbox-benchmark.jar --bloat}): how the outbox table, a queue, fares while
 * another connection holds a REPEATABLE READ snapshot open, so that neither vacuum nor page pruning nor index clean-up
 * may remove what the drain leaves behind. For each mode (a steady flow at a fixed rate; a backlog written, then
 * drained) and each treatment of completed records (kept, deleted), a run without and a run with the snapshot, one
 * after the other: rate, commit→handler latency (steady flow), the table's size, dead tuples and the tuples read per
 * record. Exit status 3 when a record was handled twice, out of order or never; 1 when a measurement failed.
 */
final class BloatBenchmark {

    static final String FLAG = "--bloat";
    private static final List<String> KNOWN = List.of("url", "user", "password", "records", "backlog-records", "rate",
            "aggregates", "snapshot-seconds", "warmup-seconds", "modes", "completed", "drain-timeout-seconds", "out",
            "log-dir");

    /**
     * @param records records of each steady flow ({@code rate × (records / rate)} of them)
     * @param backlogRecords records of each backlog
     * @param rate records/s of the steady flow, one per transaction
     * @param snapshotSeconds longest the snapshot is held; it is released at the end of the run in any case
     * @param modes {@code steady}, {@code backlog}, or both
     * @param completed {@code kept}, {@code deleted}, or both
     */
    record Options(String url, String user, String password, int records, int backlogRecords, int rate,
            int aggregates,
            int snapshotSeconds, int warmupSeconds, List<String> modes, List<String> completed,
            int drainTimeoutSeconds, Path out, Path logDir, List<String> nodeJvmOptions) {

        static Options parse(String[] args) {
            List<String> jvmOptions = new ArrayList<>();
            Map<String, String> values = BenchArgs.parse(args, FLAG, "node-jvm-option", jvmOptions);
            Path out = Path.of(values.getOrDefault("out", "target/bloat-benchmark.json")).toAbsolutePath().normalize();
            Options options = new Options(values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                    values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""),
                    BenchArgs.positive(values, "records", 500_000),
                    BenchArgs.positive(values, "backlog-records",
                            BenchArgs.positive(values, "records", 500_000)),
                    BenchArgs.positive(values, "rate", 2_000),
                    BenchArgs.positive(values, "aggregates", 50_000),
                    BenchArgs.positive(values, "snapshot-seconds", 300),
                    Integer.parseInt(values.getOrDefault("warmup-seconds", "10")),
                    list(values.getOrDefault("modes", "steady,backlog"), List.of("steady", "backlog"), "modes"),
                    list(values.getOrDefault("completed", "kept,deleted"), List.of("kept", "deleted"), "completed"),
                    BenchArgs.positive(values, "drain-timeout-seconds", 1_800), out,
                    Path.of(values.getOrDefault("log-dir", out.resolveSibling("bloat-logs").toString())),
                    jvmOptions.isEmpty() ? BenchmarkOptions.DEFAULT_NODE_JVM_OPTIONS : List.copyOf(jvmOptions));
            BenchArgs.requireNoneLeft(values, KNOWN);
            if (options.warmupSeconds() < 0 || options.warmupSeconds() >= options.records() / options.rate()) {
                throw new IllegalArgumentException("--warmup-seconds must be at least 0 and shorter than the flow ("
                        + options.records() / options.rate() + " s)");
            }
            return options;
        }

        private static List<String> list(String value, List<String> allowed, String name) {
            List<String> items = List.of(value.split(","));
            if (items.isEmpty() || !allowed.containsAll(items)) {
                throw new IllegalArgumentException("--" + name + " takes " + allowed + " but was " + value);
            }
            return items;
        }

        /** The node settings of the node benchmark, with completed records deleted or kept. */
        BenchmarkOptions nodeOptions(boolean deleted) {
            List<String> args = new ArrayList<>(List.of("--url=" + url, "--user=" + user, "--password=" + password,
                    "--out=" + out, "--log-dir=" + logDir,
                    "--node-property=outbox.processing.delete-completed-records=" + deleted));
            nodeJvmOptions.forEach(option -> args.add("--node-jvm-option=" + option));
            return BenchmarkOptions.parse(args.toArray(String[]::new));
        }

        Map<String, Object> describe() {
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("records", records);
            described.put("backlogRecords", backlogRecords);
            described.put("rate", rate);
            described.put("aggregates", aggregates);
            described.put("snapshotSeconds", snapshotSeconds);
            described.put("warmupSeconds", warmupSeconds);
            described.put("modes", modes);
            described.put("completed", completed);
            described.put("nodes", 1);
            described.put("nodeJvmOptions", nodeJvmOptions);
            return described;
        }
    }

    /** The run's result and whether every check held (3 otherwise) and every measurement ran (1 otherwise). */
    record Outcome(int exitCode, Map<String, Object> result) {
    }

    private BloatBenchmark() {
    }

    static Outcome run(Options options) throws InterruptedException {
        if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME).setLevel(Level.WARN);
        }
        System.out.printf("Bloat benchmark: steady flow of %,d records at %,d/s, backlog of %,d, over %,d aggregates;"
                + " snapshot held up to %d s; modes %s, completed records %s%n", options.records(), options.rate(),
                options.backlogRecords(), options.aggregates(),
                options.snapshotSeconds(), options.modes(), options.completed());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("startedAt", Instant.now().toString());
        result.put("nproc", Runtime.getRuntime().availableProcessors());
        result.put("jdk", System.getProperty("java.version"));
        result.put("parameters", options.describe());
        Map<String, Object> measurements = new LinkedHashMap<>();
        List<String> lines = new ArrayList<>();
        boolean failed = false;
        boolean checkFailed = false;
        BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password());
        // Stopped by a signal: the nodes are killed by NodeProcess's own hook, the database is dropped here.
        Thread dropDatabase = new Thread(database::close, "bench-bloat-cleanup");
        Runtime.getRuntime().addShutdownHook(dropDatabase);
        try (database; RecordWriter writer = new RecordWriter(database.dataSource())) {
            database.initialize();
            result.put("database", database.serverVersion());
            result.put("autovacuum", database.jdbc().queryForObject("SELECT current_setting('autovacuum')",
                    String.class));
            // The write path's first transactions are slow (class loading, JIT): not in the first run's figures.
            for (int index = 0; index < 1_000; index++) {
                writer.writeOne(index, options.aggregates());
            }
            BloatRun runs = new BloatRun(options, database, writer);
            for (String mode : options.modes()) {
                for (String completed : options.completed()) {
                    boolean deleted = completed.equals("deleted");
                    Map<String, Map<String, Object>> pair = new LinkedHashMap<>();
                    for (boolean snapshot : new boolean[] {false, true}) {
                        String name = mode + "-" + completed + "-" + (snapshot ? "snapshot" : "clean");
                        System.out.println();
                        System.out.println("== " + name);
                        Map<String, Object> measured;
                        try {
                            measured = mode.equals("steady") ? runs.steady(name, deleted, snapshot)
                                    : runs.backlog(name, deleted, snapshot);
                            checkFailed |= !BloatReport.checksHold(measured);
                        } catch (RuntimeException e) {
                            failed = true;
                            System.out.println("  FAILED: " + e);
                            measured = new LinkedHashMap<>();
                            measured.put("error", String.valueOf(e));
                        }
                        System.out.println("  " + BloatReport.line(measured));
                        measurements.put(name, measured);
                        pair.put(snapshot ? "snapshot" : "clean", measured);
                    }
                    String comparison = BloatReport.compare(mode + ", completed " + completed, pair, measurements,
                            mode + "-" + completed);
                    lines.add(comparison);
                }
            }
        }
        try {
            Runtime.getRuntime().removeShutdownHook(dropDatabase);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs anyway
        }
        result.put("measurements", measurements);
        ResultFile.write(options.out(), result);
        System.out.println();
        measurements.forEach((name, measured) -> {
            if (!name.endsWith("-ratio")) {
                System.out.println(String.format("%-26s", name) + BloatReport.line(castMap(measured)));
            }
        });
        System.out.println();
        lines.forEach(System.out::println);
        System.out.println("Results in " + options.out());
        return new Outcome(failed ? 1 : checkFailed ? 3 : 0, result);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> castMap(Object value) {
        return (Map<String, Object>) value;
    }
}
