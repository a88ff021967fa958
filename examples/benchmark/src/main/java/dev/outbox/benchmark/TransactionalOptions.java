package dev.outbox.benchmark;

import dev.outbox.processing.ProcessingOptions;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The options of the transactional-handler benchmark ({@code --transactional}), {@code --name=value}, all optional.
 *
 * @param url JDBC URL of an existing PostgreSQL database to connect to for {@code CREATE DATABASE}
 * @param user database user
 * @param password database password
 * @param records records of each measured drain
 * @param aggregates aggregates the records are spread over, round-robin
 * @param repetitions how many times both drains are measured, one after the other
 * @param warmupRecords records of the warm-up drain before each measured one
 * @param drainTimeoutSeconds longest a drain may take before the measurement is abandoned
 * @param out the JSON result file
 * @param appProperties extra Spring properties of every application ({@code key=value}), e.g.
 *     {@code outbox.processing.transaction-group-size=50}
 * @param help print the usage and exit
 */
record TransactionalOptions(String url, String user, String password, int records, int aggregates, int repetitions,
        int warmupRecords, int drainTimeoutSeconds, Path out, List<String> appProperties, boolean help) {

    static final int MAX_REPETITIONS = 20;

    static TransactionalOptions parse(String[] args) {
        List<String> appProperties = new ArrayList<>();
        List<String> rest = new ArrayList<>();
        boolean help = false;
        for (String arg : args) {
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
            } else {
                rest.add(arg);
            }
        }
        Map<String, String> values = BenchArgs.parse(rest.toArray(String[]::new), TransactionalBenchmark.FLAG,
                "app-property", appProperties);
        for (String property : appProperties) {
            if (property.indexOf('=') < 1) {
                throw new IllegalArgumentException("--app-property needs key=value but got '" + property + "'");
            }
        }
        int records = BenchArgs.positive(values, "records", 100_000);
        int repetitions = BenchArgs.positive(values, "repetitions", 1);
        if (repetitions > MAX_REPETITIONS) {
            throw new IllegalArgumentException("--repetitions must be at most " + MAX_REPETITIONS + ", was "
                    + repetitions);
        }
        TransactionalOptions options = new TransactionalOptions(
                values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""),
                records, BenchArgs.positive(values, "aggregates", 10_000), repetitions,
                BenchArgs.positive(values, "warmup-records", records),
                BenchArgs.positive(values, "drain-timeout-seconds", 900),
                Path.of(values.getOrDefault("out", "target/transactional-benchmark.json")).toAbsolutePath().normalize(),
                List.copyOf(appProperties), help);
        if (!options.url().startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException("--url must be a jdbc:postgresql:// URL but was " + options.url());
        }
        BenchArgs.requireNoneLeft(values, List.of("url", "user", "password", "records", "aggregates", "repetitions",
                "warmup-records", "drain-timeout-seconds", "out"));
        return options;
    }

    /** The workers of each application: {@code outbox.processing.concurrency} of the app properties, or its default. */
    int concurrency() {
        String key = "outbox.processing.concurrency=";
        return appProperties.stream().filter(property -> property.startsWith(key))
                .map(property -> Integer.parseInt(property.substring(key.length()).trim())).reduce((a, b) -> b)
                .orElse(ProcessingOptions.DEFAULT_CONCURRENCY);
    }

    /** Every parameter, for the result file (the password left out). */
    Map<String, Object> describe() {
        Map<String, Object> parameters = new LinkedHashMap<>();
        parameters.put("url", url);
        parameters.put("user", user);
        parameters.put("records", records);
        parameters.put("aggregates", aggregates);
        parameters.put("recordsPerWriteTransaction", 100);
        parameters.put("repetitions", repetitions);
        parameters.put("warmupRecords", warmupRecords);
        parameters.put("drainTimeoutSeconds", drainTimeoutSeconds);
        parameters.put("appProperties", appProperties);
        parameters.put("out", out.toString());
        return parameters;
    }

    static String usage() {
        return """
                Usage: java -jar outbox-benchmark.jar --transactional [--name=value ...]

                Drains the same backlog with a no-op typed handler and with a transactional projection handler
                (a row per record and a per-aggregate counter, committed with the record's completion), reports
                records/s of both and their ratio, and checks the projection.

                  --url=jdbc:postgresql://127.0.0.1:5432/test  database to connect to; each drain creates
                                                               outbox_bench_<random> next to it and drops it
                  --user=postgres --password=
                  --records=100000         records of each measured drain
                  --aggregates=10000       aggregates they are spread over (round-robin)
                  --repetitions=1          how many times both drains are measured (at most 20)
                  --warmup-records=<records>  records of the warm-up drain before each measured one
                  --drain-timeout-seconds=900
                  --out=target/transactional-benchmark.json
                  --app-property=key=value Spring property of every application (repeatable), e.g.
                                           outbox.processing.transaction-group-size=50

                Exit status: 0 when every drain ran and every check held, 1 when a drain failed, 3 when a check
                failed (projection rows missing or twice, out of their aggregate's order, or wrong counters).""";
    }
}
