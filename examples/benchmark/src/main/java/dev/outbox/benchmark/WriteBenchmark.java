package dev.outbox.benchmark;

import dev.outbox.OutboxRecord;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The write benchmark ({@code java -jar outbox-benchmark.jar --write}): what the outbox costs the business
 * transaction. On a database of its own, with the starter's defaults:
 * <ul>
 *   <li>records/s through {@code Outbox.schedule} at 1, 10 and 100 records per transaction, against a plain JDBC batch
 *   insert of the same rows into a table with the same indexes ({@code LIKE outbox_record INCLUDING ALL}), in the
 *   same run, each on an emptied table;</li>
 *   <li>the latency of a one-row business transaction (an insert into {@code bench_order}) with and without one
 *   outbox record, the two kinds alternating, through the same transaction manager.</li>
 * </ul>
 */
final class WriteBenchmark {

    static final String FLAG = "--write";
    private static final int[] RECORDS_PER_TRANSACTION = {1, 10, 100};
    private static final int AGGREGATES = 10_000;

    /**
     * @param payloadBytes 0 for {@link BenchEvent}'s few fields, else an event padded with text to about this many
     *     bytes of JSON
     */
    record Options(String url, String user, String password, int records, int transactions, int payloadBytes,
            boolean jpa, Path out) {

        static Options parse(String[] args) {
            Map<String, String> values = BenchArgs.parse(args, FLAG, null, new ArrayList<>());
            Options options = new Options(values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                    values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""),
                    BenchArgs.positive(values, "records", 20_000), BenchArgs.positive(values, "transactions", 2_000),
                    values.containsKey("payload-bytes") ? BenchArgs.positive(values, "payload-bytes", 1) : 0,
                    starter(values.getOrDefault("starter", "jpa")), Path.of(values.getOrDefault("out", "target/write-benchmark.json")));
            BenchArgs.requireNoneLeft(values, List.of("url", "user", "password", "records", "transactions", "payload-bytes",
                    "starter", "out"));
            return options;
        }

        /** true for the JPA starter's write path, false for the JDBC starter's. */
        private static boolean starter(String name) {
            return switch (name) {
                case "jpa" -> true;
                case "jdbc" -> false;
                default -> throw new IllegalArgumentException("--starter must be jpa or jdbc, not '" + name + "'");
            };
        }
    }

    private WriteBenchmark() {
    }

    static Map<String, Object> run(Options options) {
        System.out.printf("Write benchmark: %,d records per measurement at %s records per transaction%s; %,d "
                + "one-row business transactions with and without a record%n", options.records(),
                Arrays.toString(RECORDS_PER_TRANSACTION), options.payloadBytes() == 0 ? ""
                        : String.format(", payloads of about %,d bytes", options.payloadBytes()),
                options.transactions());
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("startedAt", Instant.now().toString());
        result.put("nproc", Runtime.getRuntime().availableProcessors());
        result.put("jdk", System.getProperty("java.version"));
        try (BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password())) {
            database.initialize();
            result.put("database", database.serverVersion());
            JdbcTemplate jdbc = database.jdbc();
            jdbc.execute("CREATE TABLE " + BenchSchema.REFERENCE_TABLE + " (LIKE outbox_record INCLUDING ALL)");
            jdbc.execute("CREATE TABLE bench_order (id VARCHAR(36) PRIMARY KEY, amount INT NOT NULL)");
            try (RecordWriter writer = new RecordWriter(database.dataSource(), options.jpa())) {
                result.put("starter", options.jpa() ? "jpa" : "jdbc");
                result.put("transactionManager", writer.transactionManager());
                System.out.println("Write path: the " + (options.jpa() ? "JPA" : "JDBC") + " starter's, in "
                        + writer.transactionManager());
                IntFunction<Object> events = events(options.payloadBytes());
                throughput(writer, database, events, Math.min(2_000, options.records()), 100); // warm-up
                List<Map<String, Object>> rates = new ArrayList<>();
                for (int perTransaction : RECORDS_PER_TRANSACTION) {
                    // one record per transaction is a commit per record: a quarter of the rows keeps it short
                    int records = perTransaction == 1 ? Math.max(1, options.records() / 4) : options.records();
                    rates.add(throughput(writer, database, events, records, perTransaction));
                }
                result.put("throughput", rates);
                latency(writer, jdbc, Math.min(500, options.transactions())); // warm-up
                result.put("latency", latency(writer, jdbc, options.transactions()));
            }
        }
        ResultFile.write(options.out(), result);
        System.out.println("Results in " + options.out());
        return result;
    }

    /** The {@code index}-th event of a run: {@link BenchEvent}, or one padded to about {@code payloadBytes}. */
    private static IntFunction<Object> events(int payloadBytes) {
        if (payloadBytes == 0) {
            return index -> BenchEvent.of(index, AGGREGATES);
        }
        String padding = "x".repeat(Math.max(0, payloadBytes - 100));
        return index -> new PaddedEvent(BenchEvent.of(index, AGGREGATES), padding);
    }

    /** A {@link BenchEvent} with a text field that brings its JSON to the size asked for. */
    record PaddedEvent(BenchEvent event, String note) {
    }

    private static Map<String, Object> throughput(RecordWriter writer, BenchDatabase database,
            IntFunction<Object> events, int records, int perTransaction) {
        JdbcTemplate jdbc = database.jdbc();
        jdbc.execute("TRUNCATE outbox_record, " + BenchSchema.REFERENCE_TABLE);
        List<OutboxRecord> rows = new ArrayList<>(records);
        for (int index = 0; index < records; index++) {
            rows.add(writer.build(events.apply(index), BenchEvent.aggregateId(index, AGGREGATES)));
        }
        long jdbcNanos;
        try (Connection connection = database.dataSource().getConnection()) {
            jdbcNanos = ReferenceInsert.insert(connection, BenchSchema.REFERENCE_TABLE, rows, perTransaction);
        } catch (SQLException e) {
            throw new IllegalStateException("the reference insert failed: " + e.getMessage(), e);
        }
        long start = System.nanoTime();
        for (int from = 0; from < records; from += perTransaction) {
            int first = from;
            int last = Math.min(records, from + perTransaction);
            writer.inTransaction(outbox -> {
                for (int index = first; index < last; index++) {
                    outbox.schedule(events.apply(index), BenchEvent.aggregateId(index, AGGREGATES));
                }
            });
        }
        long outboxNanos = System.nanoTime() - start;
        Integer written = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class);
        if (written == null || written != records) {
            throw new IllegalStateException("the outbox holds " + written + " records, not " + records);
        }
        double outboxRate = Stats.rate(records, Stats.seconds(outboxNanos));
        double jdbcRate = Stats.rate(records, Stats.seconds(jdbcNanos));
        Map<String, Object> measured = new LinkedHashMap<>();
        measured.put("recordsPerTransaction", perTransaction);
        measured.put("records", records);
        measured.put("payloadBytes", jdbc.queryForObject(
                "SELECT CAST(AVG(octet_length(payload)) AS INT) FROM outbox_record", Integer.class));
        measured.put("outboxRecordsPerSecond", Math.round(outboxRate));
        measured.put("jdbcRecordsPerSecond", Math.round(jdbcRate));
        measured.put("ratio", Stats.round(outboxRate / jdbcRate, 2));
        System.out.printf("  %3d per transaction: Outbox.schedule %,8.0f records/s, plain JDBC %,8.0f rows/s: "
                + "%.2fx%n", perTransaction, outboxRate, jdbcRate, outboxRate / jdbcRate);
        return measured;
    }

    /** One-row business transactions, with and without one outbox record, alternating. */
    private static Map<String, Object> latency(RecordWriter writer, JdbcTemplate jdbc, int transactions) {
        jdbc.execute("TRUNCATE outbox_record, bench_order");
        long[] without = new long[transactions];
        long[] with = new long[transactions];
        for (int n = 0; n < transactions; n++) {
            String plainId = "plain-" + n;
            long start = System.nanoTime();
            writer.inTransaction(outbox -> jdbc.update("INSERT INTO bench_order (id, amount) VALUES (?, ?)",
                    plainId, 42));
            without[n] = (System.nanoTime() - start) / 1_000;
            String orderId = "order-" + n;
            BenchEvent event = BenchEvent.of(n, AGGREGATES);
            start = System.nanoTime();
            writer.inTransaction(outbox -> {
                jdbc.update("INSERT INTO bench_order (id, amount) VALUES (?, ?)", orderId, 42);
                outbox.schedule(event, orderId);
            });
            with[n] = (System.nanoTime() - start) / 1_000;
        }
        Integer records = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record", Integer.class);
        if (records == null || records != transactions) {
            throw new IllegalStateException("the outbox holds " + records + " records, not " + transactions);
        }
        Map<String, Object> withoutStats = Stats.latencyMillis(without);
        Map<String, Object> withStats = Stats.latencyMillis(with);
        Map<String, Object> measured = new LinkedHashMap<>();
        measured.put("transactions", transactions);
        measured.put("withoutRecord", withoutStats);
        measured.put("withRecord", withStats);
        System.out.printf("  one-row transaction: without a record p50 %s ms, p99 %s ms; with one p50 %s ms, "
                + "p99 %s ms%n", withoutStats.get("p50Ms"), withoutStats.get("p99Ms"), withStats.get("p50Ms"),
                withStats.get("p99Ms"));
        return measured;
    }
}
