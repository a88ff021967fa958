package dev.outbox.benchmark;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * The driver's command line: {@code --name=value} options, all optional.
 *
 * @param url JDBC URL of an existing PostgreSQL database to connect to for {@code CREATE DATABASE}
 * @param user database user
 * @param password database password
 * @param records records of each backlog-drain measurement and of the DB-limit reference
 * @param aggregates aggregates the records are spread over, round-robin
 * @param latencySeconds how long the latency producer runs
 * @param latencyRate records per second the latency producer commits, one per transaction
 * @param warmupSeconds the first seconds of the producer left out of the latency figures
 * @param idleSeconds how long the idle node is watched
 * @param settleSeconds how long the idle node runs before it is watched
 * @param drainTimeoutSeconds longest a drain may take before the measurement is abandoned
 * @param out the JSON result file
 * @param logDir where the node logs and report files go
 * @param nodeProperties extra Spring properties for every node ({@code key=value}), e.g. to try another
 *     {@code outbox.poll-interval}; none by default
 * @param nodeJvmOptions JVM options of every node
 * @param statistics what the outbox table's statistics say when each drain starts
 * @param warmDrain after each cold drain, the same node JVMs drain a second backlog of the same size
 * @param help print the usage and exit
 */
record BenchmarkOptions(String url, String user, String password, int records, int aggregates, int latencySeconds,
        int latencyRate, int warmupSeconds, int idleSeconds, int settleSeconds, int drainTimeoutSeconds, Path out,
        Path logDir, List<String> nodeProperties, List<String> nodeJvmOptions, Statistics statistics,
        boolean warmDrain, boolean help) {

    /** The planner statistics of the outbox table when a drain starts ({@code --statistics}). */
    enum Statistics {
        /** {@code VACUUM (ANALYZE)} after the backlog is written: they describe it. */
        ANALYZED,
        /** Never analyzed since the table was created, as on a fresh database before autovacuum runs. */
        NONE,
        /**
         * Taken while NEW rows were rare (a table of COMPLETED rows, analyzed, then emptied; TRUNCATE keeps them), then
         * the backlog arrives before autoanalyze catches up: they say the NEW backlog is next to empty.
         */
        STALE;

        String option() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    static final String DEFAULT_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    static final List<String> DEFAULT_NODE_JVM_OPTIONS = List.of("-Xmx512m");

    static BenchmarkOptions defaults() {
        return parse(new String[0]);
    }

    static BenchmarkOptions parse(String[] args) {
        Map<String, String> values = new LinkedHashMap<>();
        List<String> nodeProperties = new ArrayList<>();
        List<String> nodeJvmOptions = new ArrayList<>();
        boolean help = false;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            int equals = arg.indexOf('=');
            if (!arg.startsWith("--") || equals < 0) {
                throw new IllegalArgumentException("expected --name=value but got '" + arg + "'");
            }
            String name = arg.substring(2, equals);
            String value = arg.substring(equals + 1);
            switch (name) {
                case "node-property" -> {
                    if (!value.contains("=")) {
                        throw new IllegalArgumentException("--node-property needs key=value but got '" + value + "'");
                    }
                    nodeProperties.add(value);
                }
                case "node-jvm-option" -> nodeJvmOptions.add(value);
                case "role" -> {
                    if (!value.equals("driver")) {
                        throw new IllegalArgumentException("--role must be driver or node but was " + value);
                    }
                }
                case "url", "user", "password", "records", "aggregates", "latency-seconds", "latency-rate",
                        "warmup-seconds", "idle-seconds", "settle-seconds", "drain-timeout-seconds", "out",
                        "log-dir", "statistics", "analyze", "warm-drain" -> values.put(name, value);
                default -> throw new IllegalArgumentException("unknown option --" + name);
            }
        }
        Path out = Path.of(values.getOrDefault("out", "target/benchmark.json")).toAbsolutePath().normalize();
        Path parent = out.getParent() == null ? Path.of("").toAbsolutePath() : out.getParent();
        Path logDir = Path.of(values.getOrDefault("log-dir", parent.resolve("benchmark-logs").toString()))
                .toAbsolutePath().normalize();
        BenchmarkOptions options = new BenchmarkOptions(
                values.getOrDefault("url", DEFAULT_URL),
                values.getOrDefault("user", "postgres"),
                values.getOrDefault("password", ""),
                positive(values, "records", 100_000),
                positive(values, "aggregates", 10_000),
                positive(values, "latency-seconds", 60),
                positive(values, "latency-rate", 500),
                atLeastZero(values, "warmup-seconds", 10),
                positive(values, "idle-seconds", 30),
                atLeastZero(values, "settle-seconds", 15),
                positive(values, "drain-timeout-seconds", 900),
                out,
                logDir,
                List.copyOf(nodeProperties),
                nodeJvmOptions.isEmpty() ? DEFAULT_NODE_JVM_OPTIONS : List.copyOf(nodeJvmOptions),
                statistics(values),
                bool(values, "warm-drain", true),
                help);
        if (options.warmupSeconds() >= options.latencySeconds()) {
            throw new IllegalArgumentException("--warmup-seconds (" + options.warmupSeconds()
                    + ") must be less than --latency-seconds (" + options.latencySeconds() + ")");
        }
        if (!options.url().startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("--url must be a jdbc:postgresql:// URL but was " + options.url());
        }
        return options;
    }

    /** Every parameter, for the result file (the password left out). */
    Map<String, Object> describe() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("url", url);
        parameters.put("user", user);
        parameters.put("records", records);
        parameters.put("aggregates", aggregates);
        parameters.put("recordsPerTransaction", BenchmarkDriver.RECORDS_PER_TRANSACTION);
        parameters.put("latencySeconds", latencySeconds);
        parameters.put("latencyRate", latencyRate);
        parameters.put("warmupSeconds", warmupSeconds);
        parameters.put("idleSeconds", idleSeconds);
        parameters.put("settleSeconds", settleSeconds);
        parameters.put("drainTimeoutSeconds", drainTimeoutSeconds);
        parameters.put("referenceUpdateBatch", BenchmarkDriver.REFERENCE_UPDATE_BATCH);
        parameters.put("nodeProperties", nodeProperties);
        parameters.put("nodeJvmOptions", nodeJvmOptions);
        parameters.put("statistics", statistics.option());
        parameters.put("warmDrain", warmDrain);
        parameters.put("out", out.toString());
        parameters.put("logDir", logDir.toString());
        return parameters;
    }

    static String usage() {
        return """
                Usage: java -jar outbox-benchmark.jar [--name=value ...]

                  --url=jdbc:postgresql://127.0.0.1:5432/test  database to connect to; the benchmark creates
                                                               outbox_bench_<random> next to it and drops it at the end
                  --user=postgres --password=
                  --records=100000         records of each backlog drain and of the DB-limit reference
                  --aggregates=10000       aggregates they are spread over (round-robin)
                  --latency-seconds=60     how long the latency producer runs
                  --latency-rate=500       records/s the producer commits, one per transaction
                  --warmup-seconds=10      producer seconds left out of the latency figures
                  --idle-seconds=30        how long the idle node is watched
                  --settle-seconds=15      how long the idle node runs before it is watched
                  --drain-timeout-seconds=900
                  --out=target/benchmark.json
                  --log-dir=<directory of --out>/benchmark-logs
                  --node-property=key=value    extra Spring property for every node (repeatable)
                  --node-jvm-option=-Xmx512m   JVM option of every node (repeatable; replaces the default)
                  --statistics=analyzed    the outbox table's statistics when a drain starts: analyzed (VACUUM
                                           (ANALYZE) after the backlog is written); none (never analyzed, as
                                           on a fresh database before autovacuum); stale (taken on COMPLETED
                                           rows only, so they say NEW rows are rare); --analyze=false = none
                  --warm-drain=true        after each drain, the same node JVMs drain a second backlog of as many
                                           records (the warm drain, reported beside the cold one); false: cold only

                Exit status: 0 when every measurement ran and every check held, 1 when a measurement failed,
                3 when a check failed (duplicates, order violations or records never handled).

                Other benchmarks of the jar: --write, --publishers, --latency, --bloat, and --transactional (a no-op
                against a transactional projection handler; --transactional --help lists its options).""";
    }

    private static int positive(Map<String, String> values, String name, int fallback) {
        int value = integer(values, name, fallback);
        if (value < 1) {
            throw new IllegalArgumentException("--" + name + " must be at least 1 but was " + value);
        }
        return value;
    }

    private static int atLeastZero(Map<String, String> values, String name, int fallback) {
        int value = integer(values, name, fallback);
        if (value < 0) {
            throw new IllegalArgumentException("--" + name + " must be at least 0 but was " + value);
        }
        return value;
    }

    /** {@code --statistics}, or the older {@code --analyze=true|false} (analyzed, none); not both at odds. */
    private static Statistics statistics(Map<String, String> values) {
        String named = values.get("statistics");
        @Nullable Statistics statistics = named == null ? null : switch (named) {
            case "analyzed" -> Statistics.ANALYZED;
            case "none" -> Statistics.NONE;
            case "stale" -> Statistics.STALE;
            default -> throw new IllegalArgumentException(
                    "--statistics must be analyzed, none or stale but was '" + named + "'");
        };
        String analyze = values.get("analyze");
        @Nullable Statistics byAnalyze = analyze == null ? null : switch (analyze) {
            case "true" -> Statistics.ANALYZED;
            case "false" -> Statistics.NONE;
            default -> throw new IllegalArgumentException(
                    "--analyze must be true or false but was '" + analyze + "'");
        };
        if (statistics != null && byAnalyze != null && statistics != byAnalyze) {
            throw new IllegalArgumentException("--analyze=" + analyze + " contradicts --statistics=" + named);
        }
        return statistics != null ? statistics : byAnalyze != null ? byAnalyze : Statistics.ANALYZED;
    }

    private static boolean bool(Map<String, String> values, String name, boolean fallback) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(
                    "--" + name + " must be true or false but was '" + value + "'");
        };
    }

    private static int integer(Map<String, String> values, String name, int fallback) {
        String value = values.get(name);
        if (value == null) {
            return fallback;
        }
        try {
            return Integer.parseInt(value.replace("_", "").replace(",", ""));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("--" + name + " must be a whole number but was '" + value + "'");
        }
    }
}
