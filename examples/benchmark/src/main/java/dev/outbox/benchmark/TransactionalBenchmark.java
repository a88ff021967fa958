package dev.outbox.benchmark;

import dev.outbox.Outbox;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactional-handler benchmark ({@code java -jar outbox-benchmark.jar --transactional}): in each repetition,
 * the same backlog drained by a no-op typed handler and by a transactional projection handler
 * ({@link ProjectionHandlers}), each in a Spring Boot application of this JVM with the library's defaults on a
 * database of its own, after a warm-up drain of the same work. Reports records/s of both and their ratio, and checks
 * the projection ({@link ProjectionCheck}); exit status 3 when a check fails, 1 when a drain failed.
 */
final class TransactionalBenchmark {

    static final String FLAG = "--transactional";
    private static final int RECORDS_PER_TRANSACTION = 100;
    private static final long PROGRESS_NANOS = 5_000_000_000L;

    /** The drains compared: the handler each application runs. */
    enum Variant {
        NOOP("noop", ProjectionHandlers.Noop.class),
        TRANSACTIONAL("transactional", ProjectionHandlers.Transactional.class);

        private final String key;
        private final Class<?> handlers;

        Variant(String key, Class<?> handlers) {
            this.key = key;
            this.handlers = handlers;
        }
    }

    /** The outcome: the JSON written, and the exit status (0 all good, 1 a drain failed, 3 a check failed). */
    record Outcome(Map<String, Object> result, int exitCode) {
    }

    private TransactionalBenchmark() {
    }

    static Outcome run(TransactionalOptions options) {
        System.out.printf("Transactional-handler benchmark: %,d records over %,d aggregates, %d repetition(s),"
                + " warm-up %,d records%n", options.records(), options.aggregates(), options.repetitions(),
                options.warmupRecords());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("startedAt", Instant.now().toString());
        result.put("nproc", Runtime.getRuntime().availableProcessors());
        result.put("jdk", System.getProperty("java.version"));
        result.put("parameters", options.describe());
        result.put("handlers", "typed handlers of one id and event type: no-op (not transactional); transactional"
                + " projection: per record an INSERT of (record id, aggregate id, sequence) and an upsert of the"
                + " aggregate's counter through a JdbcClient on the application's DataSource");
        result.put("drainTiming", "from the first to the last completed_at (the database's clock)");
        List<Map<String, Object>> repetitions = new ArrayList<>();
        boolean drainFailed = false;
        boolean checkFailed = false;
        for (int repetition = 1; repetition <= options.repetitions(); repetition++) {
            Map<String, Object> measured = new LinkedHashMap<>();
            measured.put("repetition", repetition);
            for (Variant variant : Variant.values()) {
                System.out.println();
                System.out.println("== repetition " + repetition + ": " + variant.key);
                Map<String, Object> drain;
                try {
                    drain = measure(variant, options);
                } catch (RuntimeException e) {
                    drainFailed = true;
                    System.out.println("  FAILED: " + e);
                    drain = new LinkedHashMap<>(Map.of("error", String.valueOf(e)));
                }
                if (drain.get("checks") instanceof Map<?, ?> checks && Boolean.FALSE.equals(checks.get("passed"))) {
                    checkFailed = true;
                    System.out.println("  CHECK FAILED: " + checks);
                }
                measured.put(variant.key, drain);
            }
            addRatio(measured);
            repetitions.add(measured);
        }
        result.put("repetitions", repetitions);
        result.put("summary", summary(repetitions));
        ResultFile.write(options.out(), result);
        System.out.println();
        print(repetitions, (Map<?, ?>) result.get("summary"));
        System.out.println("Results in " + options.out());
        return new Outcome(result, drainFailed ? 1 : checkFailed ? 3 : 0);
    }

    private static Map<String, Object> measure(Variant variant, TransactionalOptions options) {
        Map<String, Object> result = new LinkedHashMap<>();
        try (BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password())) {
            database.initialize();
            JdbcTemplate jdbc = database.jdbc();
            for (String statement : ProjectionHandlers.createTables()) {
                jdbc.execute(statement);
            }
            // Warm-up: the same work first, so that the measurement does not time the JIT compiler.
            write(variant, database, options, options.warmupRecords());
            try (ConfigurableApplicationContext app = application(variant, database, true, options)) {
                awaitAllCompleted(jdbc, options.warmupRecords(), options);
            }
            jdbc.execute("TRUNCATE outbox_record, " + ProjectionHandlers.ROWS_TABLE + ", "
                    + ProjectionHandlers.COUNTERS_TABLE);
            result.put("warmupRecords", options.warmupRecords());

            double writeSeconds = write(variant, database, options, options.records());
            System.out.printf("  warmed up with %,d records; wrote %,d records in %.1f s%n", options.warmupRecords(),
                    options.records(), writeSeconds);
            result.put("writeSeconds", writeSeconds);
            database.prepareMeasurement("outbox_record");
            try (ConfigurableApplicationContext app = application(variant, database, true, options)) {
                awaitAllCompleted(jdbc, options.records(), options);
            }
            Map<String, Object> span = jdbc.queryForMap("SELECT EXTRACT(EPOCH FROM MIN(completed_at)) AS first,"
                    + " EXTRACT(EPOCH FROM MAX(completed_at)) AS last FROM outbox_record");
            double first = ((Number) span.get("first")).doubleValue();
            double seconds = Stats.round(((Number) span.get("last")).doubleValue() - first, 3);
            double rate = Stats.rate(options.records() - 1, seconds);
            System.out.printf("  drained %,d records in %.1f s: %,.0f records/s%n", options.records(), seconds, rate);
            result.put("drainSeconds", seconds);
            result.put("drainRecordsPerSecond", rate);
            result.put("drainFromEpochSeconds", first);
            // One completed_at per completion statement (the engine's clock read once for each); in the
            // transactional drain there is one such statement per transaction.
            long completions = jdbc.queryForObject("SELECT COUNT(DISTINCT completed_at) FROM outbox_record",
                    Long.class);
            double perTransaction = (double) options.records() / Math.max(1, completions);
            result.put("completionStatements", completions);
            result.put("meanRecordsPerCompletion", Stats.round(perTransaction, 1));
            if (variant == Variant.TRANSACTIONAL) {
                Map<String, Object> checks = ProjectionCheck.run(jdbc, options.records());
                System.out.println("  checks: " + checks);
                result.put("checks", checks);
                result.put("writesAlone", ProjectionWritesAlone.measure(database.dataSource(),
                        options.concurrency(), (int) Math.max(1, Math.round(perTransaction))));
            }
        }
        return result;
    }

    /** Writes {@code records} events through {@code Outbox.schedule}, 100 per transaction, processing off. */
    private static double write(Variant variant, BenchDatabase database, TransactionalOptions options, int records) {
        long started = System.nanoTime();
        try (ConfigurableApplicationContext writer = application(variant, database, false, options)) {
            Outbox outbox = writer.getBean(Outbox.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    writer.getBean(PlatformTransactionManager.class));
            for (int from = 0; from < records; from += RECORDS_PER_TRANSACTION) {
                int start = from;
                transaction.executeWithoutResult(status -> {
                    for (int n = start; n < Math.min(records, start + RECORDS_PER_TRANSACTION); n++) {
                        String orderId = "order-" + n % options.aggregates();
                        outbox.schedule(new ProjectedOrder(orderId, n), orderId);
                    }
                });
            }
        }
        return Stats.seconds(System.nanoTime() - started);
    }

    /** Waits, looking every 50 ms, until no record is NEW; then requires all of them COMPLETED. */
    private static void awaitAllCompleted(JdbcTemplate jdbc, long records, TransactionalOptions options) {
        long deadline = System.nanoTime() + options.drainTimeoutSeconds() * 1_000_000_000L;
        long nextProgress = System.nanoTime() + PROGRESS_NANOS;
        while (Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM outbox_record WHERE status = 'NEW')", Boolean.class))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("records still NEW after " + options.drainTimeoutSeconds() + " s: "
                        + counts(jdbc));
            }
            if (System.nanoTime() > nextProgress) {
                nextProgress += PROGRESS_NANOS;
                System.out.println("    " + counts(jdbc));
            }
            LockSupport.parkNanos(50_000_000L);
        }
        Map<String, Long> counts = counts(jdbc);
        if (!counts.equals(Map.of("COMPLETED", records))) {
            throw new IllegalStateException("expected " + records + " COMPLETED records, found " + counts);
        }
    }

    private static Map<String, Long> counts(JdbcTemplate jdbc) {
        Map<String, Long> counts = new LinkedHashMap<>();
        jdbc.query("SELECT status, COUNT(*) AS records FROM outbox_record GROUP BY status ORDER BY status",
                rs -> {
                    counts.put(rs.getString("status"), rs.getLong("records"));
                });
        return counts;
    }

    private static ConfigurableApplicationContext application(Variant variant, BenchDatabase database,
            boolean processing, TransactionalOptions options) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.user(),
                "spring.datasource.password=" + database.password(), "spring.main.banner-mode=off",
                "logging.level.root=WARN", "outbox.processing.enabled=" + processing));
        properties.addAll(options.appProperties());
        return new SpringApplicationBuilder(TransactionalBenchApplication.class, variant.handlers)
                .web(WebApplicationType.NONE).properties(properties.toArray(String[]::new)).run();
    }

    private static void addRatio(Map<String, Object> measured) {
        if (measured.get(Variant.NOOP.key) instanceof Map<?, ?> noop
                && noop.get("drainRecordsPerSecond") instanceof Double reference
                && measured.get(Variant.TRANSACTIONAL.key) instanceof Map<?, ?> transactional
                && transactional.get("drainRecordsPerSecond") instanceof Double rate && reference > 0) {
            measured.put("ratioToNoop", Stats.round(rate / reference, 2));
            if (transactional.get("writesAlone") instanceof Map<?, ?> alone
                    && alone.get("recordsPerSecond") instanceof Double writes && writes > 0) {
                // Both costs on the same cores, one after the other: the rate the drain would have if the engine
                // added nothing to the handler's writes but the no-op drain's own work.
                double model = 1 / (1 / reference + 1 / writes);
                measured.put("noopPlusWritesRecordsPerSecond", Stats.round(model, 0));
                measured.put("ratioToNoopPlusWrites", Stats.round(rate / model, 2));
            }
        }
    }

    /** The median of each figure over the repetitions that have it. */
    private static Map<String, Object> summary(List<Map<String, Object>> repetitions) {
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("noopRecordsPerSecondMedian", median(repetitions.stream()
                .map(measured -> measured.get(Variant.NOOP.key) instanceof Map<?, ?> drain
                        ? drain.get("drainRecordsPerSecond") : null).toList()));
        summary.put("transactionalRecordsPerSecondMedian", median(repetitions.stream()
                .map(measured -> measured.get(Variant.TRANSACTIONAL.key) instanceof Map<?, ?> drain
                        ? drain.get("drainRecordsPerSecond") : null).toList()));
        summary.put("ratioToNoopMedian", median(repetitions.stream()
                .map(measured -> measured.get("ratioToNoop")).toList()));
        summary.put("ratioToNoopPlusWritesMedian", median(repetitions.stream()
                .map(measured -> measured.get("ratioToNoopPlusWrites")).toList()));
        return summary;
    }

    private static Object median(List<?> values) {
        double[] sorted = values.stream().filter(Double.class::isInstance).mapToDouble(Double.class::cast).sorted()
                .toArray();
        if (sorted.length == 0) {
            return "n/a";
        }
        double middle = sorted.length % 2 == 1 ? sorted[sorted.length / 2]
                : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
        return Stats.round(middle, 2);
    }

    private static void print(List<Map<String, Object>> repetitions, Map<?, ?> summary) {
        System.out.printf("%-10s %12s %15s %8s %14s %14s %8s %s%n", "repetition", "no-op rec/s", "transactional",
                "× no-op", "writes alone", "no-op+writes", "× that", "projection checks");
        for (Map<String, Object> measured : repetitions) {
            Object checks = measured.get(Variant.TRANSACTIONAL.key) instanceof Map<?, ?> drain
                    && drain.get("checks") instanceof Map<?, ?> figures
                    ? (Boolean.TRUE.equals(figures.get("passed")) ? "passed" : "FAILED " + figures) : "n/a";
            Object alone = measured.get(Variant.TRANSACTIONAL.key) instanceof Map<?, ?> drain
                    && drain.get("writesAlone") instanceof Map<?, ?> writes ? writes.get("recordsPerSecond") : null;
            System.out.printf("%-10s %12s %15s %8s %14s %14s %8s %s%n", measured.get("repetition"),
                    rate(measured.get(Variant.NOOP.key)), rate(measured.get(Variant.TRANSACTIONAL.key)),
                    measured.getOrDefault("ratioToNoop", "n/a"), rate(alone),
                    rate(measured.get("noopPlusWritesRecordsPerSecond")),
                    measured.getOrDefault("ratioToNoopPlusWrites", "n/a"), checks);
        }
        if (repetitions.size() > 1) {
            System.out.printf("%-10s %12s %15s %8s %14s %14s %8s%n", "median",
                    rate(summary.get("noopRecordsPerSecondMedian")),
                    rate(summary.get("transactionalRecordsPerSecondMedian")), summary.get("ratioToNoopMedian"), "",
                    "", summary.get("ratioToNoopPlusWritesMedian"));
        }
    }

    /** A drain's records/s, or a median's. */
    private static String rate(@Nullable Object measured) {
        Object rate = measured instanceof Map<?, ?> map ? map.get("drainRecordsPerSecond") : measured;
        if (rate instanceof Double value) {
            return String.format("%,.0f", value);
        }
        return measured instanceof Map<?, ?> map && map.containsKey("error") ? "FAILED" : "n/a";
    }

    /** The application each drain runs: the starter's auto-configuration, plus the variant's handler. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class TransactionalBenchApplication {
    }
}
