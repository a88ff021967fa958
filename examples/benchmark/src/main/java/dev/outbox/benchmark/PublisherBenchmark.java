package dev.outbox.benchmark;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.benchmark.publish.BenchTarget;
import dev.outbox.benchmark.publish.Delivered;
import dev.outbox.benchmark.publish.DeliveryTally;
import dev.outbox.benchmark.publish.KafkaTarget;
import dev.outbox.benchmark.publish.NatsTarget;
import dev.outbox.benchmark.publish.NoopTarget;
import dev.outbox.benchmark.publish.RabbitTarget;
import dev.outbox.benchmark.publish.ReferenceMessage;
import dev.outbox.spi.OutboxListener;
import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The publisher benchmark ({@code java -jar outbox-benchmark.jar --publishers}): for the no-op handler and for each
 * broker's publisher, one Spring Boot application in this JVM with the library's defaults on a database of its own
 * writes a backlog through {@code Outbox.schedule} (processing off), then drains it (processing on) and measures
 * records/s; then it measures commit → acknowledgement latency at a steady rate; finally it reads the destination back
 * and checks that every record is there, in its aggregate's order. For each broker, the broker's own client then
 * publishes the same records' messages itself ({@link PlainClientComparison}), at most {@code --reference-window}
 * unacknowledged. Kafka is an in-JVM broker; RabbitMQ and NATS are
 * the local servers (or {@code --rabbitmq-url}, {@code --nats-url}). {@code --app-property=key=value} (repeatable) sets
 * a Spring property of every application, e.g. {@code --app-property=outbox.batch-size=500}.
 */
final class PublisherBenchmark {

    static final String FLAG = "--publishers";
    private static final int RECORDS_PER_TRANSACTION = 100;
    private static final Duration DRAIN_DEADLINE = Duration.ofMinutes(10);

    record Options(String url, String user, String password, int records, int aggregates, int latencyRate,
            int latencySeconds, List<String> targets, String rabbitmqUrl, String natsUrl, Path out,
            List<String> appProperties, int referenceWindow, int warmupRecords) {

        static Options parse(String[] args) {
            List<String> appProperties = new ArrayList<>();
            Map<String, String> values = BenchArgs.parse(args, FLAG, "app-property", appProperties);
            int records = BenchArgs.positive(values, "records", 100_000);
            Options options = new Options(values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                    values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""),
                    records, BenchArgs.positive(values, "aggregates", 10_000),
                    BenchArgs.positive(values, "latency-rate", 500), BenchArgs.positive(values, "latency-seconds", 30),
                    List.of(values.getOrDefault("targets", "noop,kafka,rabbitmq,nats").split(",")),
                    values.getOrDefault("rabbitmq-url", "amqp://guest:guest@127.0.0.1:5672"),
                    values.getOrDefault("nats-url", "nats://127.0.0.1:4222"),
                    Path.of(values.getOrDefault("out", "target/publisher-benchmark.json")), List.copyOf(appProperties),
                    BenchArgs.positive(values, "reference-window", PlainClientComparison.defaultWindow(appProperties)),
                    BenchArgs.positive(values, "warmup-records", records));
            BenchArgs.requireNoneLeft(values, List.of("url", "user", "password", "records", "aggregates",
                    "latency-rate", "latency-seconds", "targets", "rabbitmq-url", "nats-url", "out",
                    "reference-window", "warmup-records"));
            return options;
        }
    }

    /** The outcome: the JSON written, and whether every check held. */
    record Outcome(Map<String, Object> result, boolean passed) {
    }

    private PublisherBenchmark() {
    }

    static Outcome run(Options options) {
        System.out.printf("Publisher benchmark: %,d records over %,d aggregates; latency %d/s for %d s; targets %s;"
                + " plain-client window %,d%n", options.records(), options.aggregates(), options.latencyRate(),
                options.latencySeconds(), options.targets(), options.referenceWindow());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("startedAt", Instant.now().toString());
        result.put("nproc", Runtime.getRuntime().availableProcessors());
        result.put("jdk", System.getProperty("java.version"));
        result.put("parameters", Map.of("records", options.records(), "aggregates", options.aggregates(),
                "recordsPerTransaction", RECORDS_PER_TRANSACTION, "latencyRate", options.latencyRate(),
                "latencySeconds", options.latencySeconds(), "referenceWindow", options.referenceWindow(),
                "warmupRecords", options.warmupRecords()));
        Map<String, Object> measurements = new LinkedHashMap<>();
        boolean passed = true;
        for (String name : options.targets()) {
            System.out.println();
            System.out.println("== " + name);
            try (BenchTarget target = target(name, options);
                    BenchDatabase database = BenchDatabase.create(options.url(), options.user(),
                            options.password())) {
                database.initialize();
                Map<String, Object> measured = measure(target, database, options);
                measured.put("appProperties", options.appProperties());
                passed &= Boolean.TRUE.equals(measured.get("passed"));
                measurements.put(name, measured);
            } catch (RuntimeException e) {
                passed = false;
                System.out.println("  FAILED: " + e);
                measurements.put(name, Map.of("error", String.valueOf(e)));
            }
        }
        addRatios(measurements);
        result.put("measurements", measurements);
        ResultFile.write(options.out(), result);
        System.out.println();
        PublisherTable.print(measurements);
        System.out.println("Results in " + options.out());
        return new Outcome(result, passed);
    }

    private static BenchTarget target(String name, Options options) {
        return switch (name) {
            case "noop" -> new NoopTarget();
            case "kafka" -> new KafkaTarget();
            case "rabbitmq" -> new RabbitTarget(URI.create(options.rabbitmqUrl()));
            case "nats" -> new NatsTarget(options.natsUrl());
            default -> throw new IllegalArgumentException("unknown target '" + name
                    + "': noop, kafka, rabbitmq or nats");
        };
    }

    private static Map<String, Object> measure(BenchTarget target, BenchDatabase database, Options options) {
        JdbcTemplate jdbc = database.jdbc();
        Map<String, Delivered> written = new HashMap<>();
        Map<String, Object> result = new LinkedHashMap<>();

        // Warm-up: the same work first, so that the measurement does not time the JIT compiler. As many records as
        // the drain by default: after a fifth, the compiler's threads still used 1.8-2.7 CPU-seconds (of 2 cores)
        // in a 3-5-s Kafka drain, compiling the in-JVM broker's and the producer's code, run per request.
        int warmup = options.warmupRecords();
        write(target, database, options, warmup);
        try (ConfigurableApplicationContext app = application(target, database, true, options)) {
            awaitAllCompleted(jdbc, warmup);
        }
        List<ReferenceMessage> referenceWarmup = target.publishes() ? PlainClientComparison.messages(jdbc) : List.of();
        collect(jdbc, written);
        jdbc.update("DELETE FROM outbox_record");
        System.out.printf("  warmed up with %,d records%n", warmup);
        result.put("warmupRecords", warmup);

        double writeSeconds = write(target, database, options, options.records());
        System.out.printf("  wrote %,d records in %.1f s%n", options.records(), writeSeconds);
        result.put("writeSeconds", writeSeconds);
        result.put("handlerIds", jdbc.queryForList("SELECT DISTINCT handler_id FROM outbox_record", String.class));
        database.prepareMeasurement("outbox_record");
        List<ReferenceMessage> referenceMessages;

        try (ConfigurableApplicationContext app = application(target, database, true, options)) {
            awaitAllCompleted(jdbc, options.records());
            Map<String, Object> span = jdbc.queryForMap("SELECT EXTRACT(EPOCH FROM MIN(completed_at)) AS first,"
                    + " EXTRACT(EPOCH FROM MAX(completed_at)) AS last FROM outbox_record");
            double seconds = Stats.round(((Number) span.get("last")).doubleValue()
                    - ((Number) span.get("first")).doubleValue(), 3);
            double rate = Stats.rate(options.records() - 1, seconds);
            System.out.printf("  drained %,d records in %.1f s: %,.0f records/s%n", options.records(), seconds, rate);
            result.put("drainSeconds", seconds);
            result.put("drainRecordsPerSecond", rate);
            result.put("drainTiming", "from the first to the last completed_at (the database's clock)");
            // the span in epoch seconds: to match it with CPU samples of the processes taken outside
            result.put("drainFromEpochSeconds", ((Number) span.get("first")).doubleValue());
            result.put("drainToEpochSeconds", ((Number) span.get("last")).doubleValue());
            referenceMessages = target.publishes() ? PlainClientComparison.messages(jdbc) : List.of();
            collect(jdbc, written);
            jdbc.update("DELETE FROM outbox_record");

            Acknowledgements acknowledgements = app.getBean(Acknowledgements.class);
            acknowledgements.clear();
            Map<String, Long> committed = produce(app, options);
            awaitAllCompleted(jdbc, committed.size());
            long[] latencies = committed.entrySet().stream()
                    .filter(entry -> acknowledgements.at(entry.getKey()) != null)
                    .mapToLong(entry -> acknowledgements.at(entry.getKey()) - entry.getValue()).toArray();
            // the clock is read after the commit returned: an acknowledgement may come first, by a few microseconds
            result.put("acknowledgedBeforeCommitReturned", java.util.Arrays.stream(latencies)
                    .filter(latency -> latency < 0).count());
            result.put("withoutAcknowledgement", committed.size() - latencies.length);
            Map<String, Object> latency = Stats.latencyMillis(latencies);
            System.out.printf("  commit -> %s at %d/s: p50 %s ms, p95 %s ms, p99 %s ms%n",
                    target.publishes() ? "broker acknowledgement" : "handler", options.latencyRate(),
                    latency.get("p50Ms"), latency.get("p95Ms"), latency.get("p99Ms"));
            result.put("latency", latency);
            result.put("latencyMeasures", target.publishes() ? "commit returned -> the broker's acknowledgement"
                    : "commit returned -> the no-op handler returned");
            collect(jdbc, written);
        }

        // after the library's application closed: the client has the machine to itself, as the drain had
        PlainClientComparison.measure(target, referenceWarmup, referenceMessages, options.referenceWindow(), result);
        if (target.publishes()) {
            DeliveryTally tally = new DeliveryTally(written, target.readBack(written.size()));
            System.out.println("  read back: " + tally);
            result.put("readBack", tally.describe());
            result.put("passed", tally.passed());
        } else {
            result.put("passed", true);
        }
        return result;
    }

    /** Writes {@code records} records through {@code Outbox.schedule}, 100 per transaction, processing off. */
    private static double write(BenchTarget target, BenchDatabase database, Options options, int records) {
        long started = System.nanoTime();
        try (ConfigurableApplicationContext writer = application(target, database, false, options)) {
            Outbox outbox = writer.getBean(Outbox.class);
            TransactionTemplate transaction = new TransactionTemplate(
                    writer.getBean(PlatformTransactionManager.class));
            for (int from = 0; from < records; from += RECORDS_PER_TRANSACTION) {
                int start = from;
                transaction.executeWithoutResult(status -> {
                    for (int n = start; n < Math.min(records, start + RECORDS_PER_TRANSACTION); n++) {
                        outbox.schedule(Map.of("order", n % options.aggregates(), "n", n),
                                "order-" + n % options.aggregates(), "OrderPlaced");
                    }
                });
            }
        }
        return Stats.seconds(System.nanoTime() - started);
    }

    /** One record per transaction at {@code latencyRate}/s; returns each record's commit time (epoch µs). */
    private static Map<String, Long> produce(ConfigurableApplicationContext app, Options options) {
        Outbox outbox = app.getBean(Outbox.class);
        TransactionTemplate transaction = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        Map<String, Long> committed = new LinkedHashMap<>();
        long total = (long) options.latencyRate() * options.latencySeconds();
        long intervalNanos = 1_000_000_000L / options.latencyRate();
        long start = System.nanoTime();
        for (long n = 0; n < total; n++) {
            LockSupport.parkNanos(start + n * intervalNanos - System.nanoTime());
            long number = n;
            OutboxRecord record = transaction.execute(status -> outbox.schedule(Map.of("n", number),
                    "latency-" + number % options.aggregates(), "OrderPlaced"));
            committed.put(record.getId(), BenchClock.nowMicros());
        }
        return committed;
    }

    /**
     * Waits until no record is NEW (an index-only look at the open records, every 50 ms: counting them would load the
     * database being measured), then checks that all are COMPLETED.
     */
    private static void awaitAllCompleted(JdbcTemplate jdbc, long records) {
        long deadline = System.nanoTime() + DRAIN_DEADLINE.toNanos();
        long nextProgress = System.nanoTime() + 5_000_000_000L;
        while (Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM outbox_record WHERE status = 'NEW')", Boolean.class))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("records still NEW after " + DRAIN_DEADLINE + ": " + counts(jdbc));
            }
            if (System.nanoTime() > nextProgress) {
                nextProgress += 5_000_000_000L;
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

    private static void collect(JdbcTemplate jdbc, Map<String, Delivered> written) {
        jdbc.query("SELECT id, aggregate_id, sequence_no FROM outbox_record", rs -> {
            written.put(rs.getString("id"), new Delivered(rs.getString("id"), rs.getString("aggregate_id"),
                    rs.getLong("sequence_no")));
        });
    }

    private static ConfigurableApplicationContext application(BenchTarget target, BenchDatabase database,
            boolean processing, Options options) {
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + database.url(), "spring.datasource.username=" + database.user(),
                "spring.datasource.password=" + database.password(), "spring.main.banner-mode=off",
                "logging.level.root=WARN", "outbox.processing.enabled=" + processing));
        properties.addAll(target.properties());
        properties.addAll(options.appProperties());
        List<Class<?>> sources = new ArrayList<>(List.of(PublisherBenchApplication.class));
        if (!target.publishes()) {
            sources.add(NoopHandler.class);
        }
        return new SpringApplicationBuilder(sources.toArray(Class<?>[]::new)).web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new)).run();
    }

    private static void addRatios(Map<String, Object> measurements) {
        if (!(measurements.get("noop") instanceof Map<?, ?> noop)
                || !(noop.get("drainRecordsPerSecond") instanceof Double reference)) {
            return;
        }
        measurements.forEach((name, measured) -> {
            if (measured instanceof Map<?, ?> map && map.get("drainRecordsPerSecond") instanceof Double rate) {
                @SuppressWarnings("unchecked")
                Map<String, Object> writable = (Map<String, Object>) map;
                writable.put("drainRatioToNoop", Stats.round(rate / reference, 2));
            }
        });
    }

    /** The application each measurement runs: the starter's auto-configuration, and the acknowledgement clock. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    static class PublisherBenchApplication {

        @Bean
        Acknowledgements acknowledgements() {
            return new Acknowledgements();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class NoopHandler {

        @Bean
        OutboxRecordProcessor noopHandler() {
            return record -> { };
        }
    }

    /** When each record was first acknowledged by its broker, or handled by the no-op handler (epoch µs). */
    static final class Acknowledgements implements OutboxListener {

        private final Map<String, Long> at = new ConcurrentHashMap<>();

        @Override
        public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
            at.putIfAbsent(record.getId(), BenchClock.nowMicros());
        }

        @Override
        public void onCompleted(OutboxRecord record, Duration handlerTime) {
            if (record.getHandlerId() == null) {
                at.putIfAbsent(record.getId(), BenchClock.nowMicros());
            }
        }

        @Nullable Long at(String recordId) {
            return at.get(recordId);
        }

        void clear() {
            at.clear();
        }
    }
}
