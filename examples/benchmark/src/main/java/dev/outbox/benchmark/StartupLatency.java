package dev.outbox.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The latency benchmark from start ({@code java -jar outbox-benchmark.jar --latency}): commit → handler latency over
 * the whole run, the first seconds included, each rate from a freshly started node. For each rate: an emptied outbox,
 * one node JVM started (start gate open from the start), and as soon as the node's application is ready
 * ({@code ApplicationReadyEvent}) the {@link LatencyProducer} commits one record per transaction at that rate. Nothing
 * is left out: the figures are over the whole run, over its first seconds, and per second.
 *
 * <p>Before the first rate the driver's own write path runs for a few seconds with no node (then the table is
 * emptied), so that the producer's lag shows the node's start, not the driver's.
 */
final class StartupLatency {

    static final String FLAG = "--latency";
    private static final long READY_DEADLINE_NANOS = 180_000_000_000L;
    private static final long DRAIN_DEADLINE_NANOS = 120_000_000_000L;

    record Options(String url, String user, String password, List<Integer> rates, int seconds, int firstSeconds,
            int driverWarmupSeconds, int aggregates, Path out, Path logDir, List<String> nodeProperties,
            List<String> nodeJvmOptions) {

        static Options parse(String[] args) {
            List<String> nodeProperties = new ArrayList<>();
            List<String> nodeJvmOptions = new ArrayList<>();
            List<String> rest = new ArrayList<>();
            for (String arg : args) {
                if (arg.startsWith("--node-property=")) {
                    nodeProperties.add(arg.substring("--node-property=".length()));
                } else if (arg.startsWith("--node-jvm-option=")) {
                    nodeJvmOptions.add(arg.substring("--node-jvm-option=".length()));
                } else {
                    rest.add(arg);
                }
            }
            Map<String, String> values = BenchArgs.parse(rest.toArray(String[]::new), FLAG, null, new ArrayList<>());
            List<Integer> rates = new ArrayList<>();
            for (String rate : values.getOrDefault("rates", "500,2000").split(",")) {
                rates.add(BenchArgs.positive(Map.of("rates", rate.trim()), "rates", 1));
            }
            Path out = Path.of(values.getOrDefault("out", "target/latency-benchmark.json")).toAbsolutePath()
                    .normalize();
            Path parent = out.getParent() == null ? Path.of("").toAbsolutePath() : out.getParent();
            Options options = new Options(values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                    values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""), List.copyOf(rates),
                    BenchArgs.positive(values, "seconds", 60), BenchArgs.positive(values, "first-seconds", 5),
                    BenchArgs.positive(values, "driver-warmup-seconds", 5),
                    BenchArgs.positive(values, "aggregates", 10_000), out,
                    Path.of(values.getOrDefault("log-dir", parent.resolve("latency-logs").toString()))
                            .toAbsolutePath().normalize(),
                    List.copyOf(nodeProperties),
                    nodeJvmOptions.isEmpty() ? BenchmarkOptions.DEFAULT_NODE_JVM_OPTIONS : List.copyOf(nodeJvmOptions));
            BenchArgs.requireNoneLeft(values, List.of("url", "user", "password", "rates", "seconds", "first-seconds",
                    "driver-warmup-seconds", "aggregates", "out", "log-dir"));
            return options;
        }

        /** The node benchmark's options the {@link NodeGroup} takes its settings from. */
        BenchmarkOptions nodeOptions() {
            List<String> args = new ArrayList<>(List.of("--url=" + url, "--user=" + user, "--password=" + password,
                    "--aggregates=" + aggregates, "--out=" + out, "--log-dir=" + logDir));
            nodeProperties.forEach(property -> args.add("--node-property=" + property));
            nodeJvmOptions.forEach(option -> args.add("--node-jvm-option=" + option));
            return BenchmarkOptions.parse(args.toArray(String[]::new));
        }

        Map<String, Object> describe() {
            Map<String, Object> described = new LinkedHashMap<>();
            described.put("url", url);
            described.put("rates", rates);
            described.put("seconds", seconds);
            described.put("firstSeconds", firstSeconds);
            described.put("driverWarmupSeconds", driverWarmupSeconds);
            described.put("aggregates", aggregates);
            described.put("nodeProperties", nodeProperties);
            described.put("nodeJvmOptions", nodeJvmOptions);
            return described;
        }
    }

    /** The JSON written and whether every run held its checks. */
    record Outcome(boolean passed, Map<String, Object> result) {
    }

    private StartupLatency() {
    }

    static Outcome run(Options options) throws InterruptedException {
        System.out.printf("Latency from start: %s records/s, %d s each from a freshly started node; nothing left out"
                + " (first %d s also apart)%n", options.rates(), options.seconds(), options.firstSeconds());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("startedAt", Instant.now().toString());
        result.put("nproc", Runtime.getRuntime().availableProcessors());
        result.put("jdk", System.getProperty("java.version"));
        result.put("parameters", options.describe());
        Map<String, Object> runs = new LinkedHashMap<>();
        boolean passed = true;
        BenchmarkOptions nodeOptions = options.nodeOptions();
        try (BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password());
                RecordWriter writer = new RecordWriter(database.dataSource())) {
            database.initialize();
            result.put("postgres", database.serverVersion());
            // The driver's write path warm, so that the producer's lag is about the node starting, not the driver.
            new LatencyProducer(writer, options.rates().get(0), options.driverWarmupSeconds(), options.aggregates())
                    .run();
            for (int rate : options.rates()) {
                Map<String, Object> measured;
                try {
                    measured = measure(options, nodeOptions, database, writer, rate);
                } catch (RuntimeException e) {
                    // e.g. a machine too busy for the producer to keep up: the other rates still count
                    System.out.println("  FAILED: " + e);
                    measured = new LinkedHashMap<>(Map.of("rate", rate, "error", String.valueOf(e)));
                }
                passed &= Boolean.TRUE.equals(measured.get("checksPassed"));
                runs.put(Integer.toString(rate), measured);
            }
        }
        result.put("runs", runs);
        ResultFile.write(options.out(), result);
        System.out.println("Results in " + options.out());
        return new Outcome(passed, result);
    }

    private static Map<String, Object> measure(Options options, BenchmarkOptions nodeOptions, BenchDatabase database,
            RecordWriter writer, int rate) throws InterruptedException {
        String phase = "latency-from-start-" + rate;
        System.out.printf("%n== %,d records/s for %d s%n", rate, options.seconds());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("rate", rate);
        result.put("seconds", options.seconds());
        Path readyFile = nodeOptions.logDir().resolve(phase + "-node-1.report.json" + ".ready");
        boolean passed;
        try (NodeGroup nodes = startFresh(database, readyFile, () -> NodeGroup.start(phase, 1, nodeOptions, database))) {
            nodes.open(); // no gate: the node processes from its start, as an application does
            passed = produceAndMeasure(options, database, writer, rate, readyFile, new Relay() {
                @Override
                public void checkAlive() {
                    nodes.checkAlive();
                }

                @Override
                public void stop() {
                    nodes.stop();
                }
            }, result);
            result.put("nodeProcesses", nodes.describe());
        }
        // The same producer against the plain-JDBC relay, from its own fresh JVM: what this machine allows.
        System.out.println("  the same against the plain-JDBC LISTEN + claim relay:");
        Map<String, Object> reference = new LinkedHashMap<>();
        Path referenceReady = nodeOptions.logDir().resolve(phase + "-listen-reference.report.json.ready");
        NodeProcess relay = startFresh(database, referenceReady,
                () -> ListenReference.start(database, nodeOptions.logDir(), phase, nodeOptions.nodeJvmOptions()));
        try {
            passed &= produceAndMeasure(options, database, writer, rate, referenceReady, new Relay() {
                @Override
                public void checkAlive() {
                    relay.checkAlive();
                }

                @Override
                public void stop() {
                    relay.terminate();
                    relay.awaitStopped();
                }
            }, reference);
        } finally {
            relay.kill();
        }
        result.put("listenReference", reference);
        result.put("p99ToReference", ratio(result, reference, "p99Ms"));
        result.put("p50ToReference", ratio(result, reference, "p50Ms"));
        System.out.printf("  whole run against the reference: p50 %s×, p99 %s×%n", result.get("p50ToReference"),
                result.get("p99ToReference"));
        result.put("checksPassed", passed);
        return result;
    }

    /** What hands the records on in a run: the node, or the plain-JDBC reference. */
    private interface Relay {

        void checkAlive();

        /** After the drain: a graceful stop, waited for. */
        void stop();
    }

    /** An emptied outbox and no ready file left from an earlier run, then the relay's JVM started. */
    private static <T> T startFresh(BenchDatabase database, Path readyFile, java.util.function.Supplier<T> start) {
        database.resetForPhase();
        database.checkpoint();
        deleteQuietly(readyFile);
        return start.get();
    }

    /**
     * Waits for the relay's ready file, runs the producer, waits until nothing is NEW, stops the relay, and puts the
     * figures and checks into {@code result}; returns whether the checks held.
     */
    private static boolean produceAndMeasure(Options options, BenchDatabase database, RecordWriter writer, int rate,
            Path readyFile, Relay relay, Map<String, Object> result) throws InterruptedException {
        JdbcTemplate jdbc = database.jdbc();
        long startedMicros = BenchClock.nowMicros();
        long readyMicros = awaitReady(relay, readyFile);
        System.out.printf("  ready %,d ms after its JVM was started; producing%n", (readyMicros - startedMicros) / 1_000);
        LatencyProducer.Produced produced = new LatencyProducer(writer, rate, options.seconds(), options.aggregates())
                .run();
        long deadline = System.nanoTime() + DRAIN_DEADLINE_NANOS;
        while (jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record WHERE status = 'NEW'", Long.class) > 0) {
            relay.checkAlive();
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("records still NEW 120 s after the producer stopped");
            }
            Thread.sleep(50);
        }
        relay.stop();
        result.put("nodeStartToReadyMs", (readyMicros - startedMicros) / 1_000);
        result.put("readyToFirstCommitMs", Stats.round(
                (Arrays.stream(produced.committedAtMicros()).min().orElse(readyMicros) - readyMicros) / 1e3, 3));
        figures(jdbc, produced, rate, options.firstSeconds(), result);
        HandlingCheck check = HandlingCheck.run(jdbc, produced.ids().length);
        result.put("checks", check.describe());
        result.put("checksPassed", check.passed());
        System.out.println("  " + check.summary());
        return check.passed();
    }

    @SuppressWarnings("unchecked")
    private static @Nullable Double ratio(Map<String, Object> node, Map<String, Object> reference, String figure) {
        Object ofNode = ((Map<String, Object>) node.getOrDefault("latencyWholeRun", Map.of())).get(figure);
        Object ofReference = ((Map<String, Object>) reference.getOrDefault("latencyWholeRun", Map.of())).get(figure);
        if (ofNode instanceof Number n && ofReference instanceof Number r && r.doubleValue() > 0) {
            return Stats.round(n.doubleValue() / r.doubleValue(), 2);
        }
        return null;
    }

    /** Latency and producer lag: whole run, first seconds, and per second of the schedule. */
    @SuppressWarnings("unchecked")
    private static void figures(JdbcTemplate jdbc, LatencyProducer.Produced produced, int rate, int firstSeconds,
            Map<String, Object> result) {
        Map<String, Long> firstCall = new HashMap<>();
        jdbc.query("SELECT record_id, MIN(handled_at) AS first_call FROM bench_handled GROUP BY record_id",
                rs -> {
                    firstCall.put(rs.getString("record_id"), rs.getLong("first_call"));
                });
        int total = produced.ids().length;
        long[] latency = new long[total];
        boolean[] handled = new boolean[total];
        for (int index = 0; index < total; index++) {
            Long handledAt = firstCall.get(produced.ids()[index]);
            if (handledAt != null) {
                latency[index] = handledAt - produced.committedAtMicros()[index];
                handled[index] = true;
            }
        }
        int first = Math.min(total, rate * firstSeconds);
        Map<String, Object> whole = Stats.latencyMillis(select(latency, handled, 0, total));
        Map<String, Object> start = Stats.latencyMillis(select(latency, handled, 0, first));
        result.put("recordsProduced", total);
        result.put("unhandled", total - firstCall.size());
        result.put("latencyWholeRun", whole);
        result.put("latencyFirstSeconds", start);
        result.put("producerLateByMsWholeRun", Stats.latencyMillis(produced.lateByMicros()));
        result.put("producerLateByMsFirstSeconds",
                Stats.latencyMillis(Arrays.copyOfRange(produced.lateByMicros(), 0, first)));
        List<Map<String, Object>> perSecond = new ArrayList<>();
        for (int from = 0; from < total; from += rate) {
            int to = Math.min(total, from + rate);
            Map<String, Object> second = new LinkedHashMap<>();
            second.put("second", from / rate);
            Map<String, Object> stats = Stats.latencyMillis(select(latency, handled, from, to));
            second.put("p50Ms", stats.get("p50Ms"));
            second.put("p99Ms", stats.get("p99Ms"));
            second.put("maxMs", stats.get("maxMs"));
            second.put("producerLateMaxMs",
                    Stats.latencyMillis(Arrays.copyOfRange(produced.lateByMicros(), from, to)).get("maxMs"));
            perSecond.add(second);
        }
        result.put("perSecond", perSecond);
        Map<String, Object> lateWhole = (Map<String, Object>) result.get("producerLateByMsWholeRun");
        Map<String, Object> lateFirst = (Map<String, Object>) result.get("producerLateByMsFirstSeconds");
        System.out.printf("  whole run:   p50 %s, p99 %s, max %s; producer late p99 %s, max %s%n", whole.get("p50Ms"),
                whole.get("p99Ms"), whole.get("maxMs"), lateWhole.get("p99Ms"), lateWhole.get("maxMs"));
        System.out.printf("  first %d s:   p50 %s, p99 %s, max %s; producer late p99 %s, max %s%n", firstSeconds,
                start.get("p50Ms"), start.get("p99Ms"), start.get("maxMs"), lateFirst.get("p99Ms"),
                lateFirst.get("maxMs"));
        StringBuilder line = new StringBuilder("  p99 per second (ms):");
        perSecond.stream().limit(10).forEach(second -> line.append(' ').append(second.get("p99Ms")));
        System.out.println(line.append(perSecond.size() > 10 ? " …" : ""));
    }

    private static long[] select(long[] values, boolean[] present, int from, int to) {
        return java.util.stream.IntStream.range(from, to).filter(index -> present[index])
                .mapToLong(index -> values[index]).toArray();
    }

    private static long awaitReady(Relay relay, Path readyFile) throws InterruptedException {
        long deadline = System.nanoTime() + READY_DEADLINE_NANOS;
        while (System.nanoTime() < deadline) {
            relay.checkAlive();
            if (Files.exists(readyFile)) {
                try {
                    return Long.parseLong(Files.readString(readyFile).trim());
                } catch (IOException | NumberFormatException e) {
                    // being written: read it again
                }
            }
            Thread.sleep(1);
        }
        throw new IllegalStateException("not ready within 180 s: " + readyFile);
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // a stale file would make the run start early; NodeGroup fails on the same directory anyway
        }
    }
}
