package dev.outbox.benchmark;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The console benchmark ({@code java -jar outbox-benchmark.jar --console-queries}): how long each query the operator
 * page causes takes on PostgreSQL with a large outbox table. The monitor's refresh (and each of its statements), the
 * count of every status COMPLETED included (what {@code outbox.metrics.count-completed-records} adds to it), the
 * FAILED records' first page in both orders, a deep page after a cursor, pages filtered by handler, event type,
 * aggregate, error text and age, the count of FAILED records unfiltered and filtered, what a page's records hold back
 * and a partition's open records (a click): each run {@code --repeats} times, first on the table as loaded (never
 * analyzed: this server runs without autovacuum), then after {@code ANALYZE}, then after {@code VACUUM (ANALYZE)}. Prints median, max and first run per query and flags
 * those over {@code --goal-millis} (the 200 ms); for each of those, the plans of its statements as it ran
 * once more ({@link AutoExplain}: EXPLAIN ANALYZE with buffers, as the library builds and binds them).
 */
final class ConsoleQueryBenchmark {

    static final String FLAG = "--console-queries";
    private static final int PAGE_SIZE = 100;
    private static final Duration STALE_TIMEOUT = Duration.ofSeconds(10);
    private static final List<String> KNOWN = List.of("url", "user", "password", "records", "new-records",
            "failed-stride", "repeats", "goal-millis", "keep-database", "out");

    /**
     * @param records records in the table
     * @param newRecords the newest of them NEW
     * @param failedStride every so many of the others FAILED
     * @param repeats runs of each query in each phase
     * @param goalMillis a query whose max is over it is flagged, and its plans printed
     * @param keepDatabase leave the database in place afterwards, for EXPLAIN by hand
     */
    record Options(String url, String user, String password, int records, int newRecords, int failedStride,
            int repeats, int goalMillis, boolean keepDatabase, Path out) {

        static Options parse(String[] args) {
            Map<String, String> values = BenchArgs.parse(args, FLAG, null, new ArrayList<>());
            Options options = new Options(values.getOrDefault("url", BenchmarkOptions.DEFAULT_URL),
                    values.getOrDefault("user", "postgres"), values.getOrDefault("password", ""),
                    BenchArgs.positive(values, "records", 1_000_000),
                    BenchArgs.positive(values, "new-records", 10_000),
                    BenchArgs.positive(values, "failed-stride", 10),
                    BenchArgs.positive(values, "repeats", 7),
                    Integer.parseInt(values.getOrDefault("goal-millis", "200")),
                    Boolean.parseBoolean(values.getOrDefault("keep-database", "false")),
                    Path.of(values.getOrDefault("out", "target/console-query-benchmark.json")).toAbsolutePath()
                            .normalize());
            BenchArgs.requireNoneLeft(values, KNOWN);
            return options;
        }
    }

    /** One query the page causes, by the name the report gives it. */
    private record ConsoleQuery(String name, Runnable run) {
    }

    private ConsoleQueryBenchmark() {
    }

    /** Runs the benchmark; 0 when it could measure, whatever the figures. */
    static int run(Options options) {
        ((LoggerContext) LoggerFactory.getILoggerFactory()).getLogger("ROOT").setLevel(Level.WARN);
        try (BenchDatabase database = BenchDatabase.create(options.url(), options.user(), options.password())) {
            if (options.keepDatabase()) {
                database.keep();
            }
            database.initialize();
            JdbcTemplate jdbc = database.jdbc();
            long loadMillis = ConsoleRecordLoad.fill(jdbc, options.records(), options.newRecords(),
                    options.failedStride());
            // The first read after a bulk load writes every page's hint bits: a cost of the load, not of the page.
            jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record", Long.class);
            database.checkpoint();
            Map<String, Long> statuses = database.statusCounts();
            System.out.printf("Loaded %,d records in %.1f s: %s; %s%n", options.records(), loadMillis / 1000.0,
                    statuses, database.serverVersion());

            JdbcOutboxStores stores = JdbcOutboxStores.create(database.dataSource());
            List<ConsoleQuery> queries = queries(stores, jdbc);
            AutoExplain explain = autoExplain(database);
            @Nullable List<ConsoleQuery> explained = explain == null ? null
                    : queries(JdbcOutboxStores.create(explain.dataSource()), jdbc);
            Map<String, Object> phases = new LinkedHashMap<>();
            phases.put("notAnalyzed", measure("table as loaded, never analyzed", queries, options.repeats(),
                    options.goalMillis(), database.name(), explain, explained));
            jdbc.execute("ANALYZE outbox_record");
            phases.put("analyzed", measure("after ANALYZE outbox_record", queries, options.repeats(),
                    options.goalMillis(), database.name(), explain, explained));
            // what autovacuum would do next: the visibility map lets index-only scans skip the heap
            jdbc.execute("VACUUM (ANALYZE) outbox_record");
            phases.put("vacuumed", measure("after VACUUM (ANALYZE) outbox_record", queries, options.repeats(),
                    options.goalMillis(), database.name(), explain, explained));
            if (explain != null) {
                explain.close();
            }

            Map<String, Object> result = new LinkedHashMap<>();
            result.put("benchmark", "console-queries");
            result.put("finishedAt", Instant.now().toString());
            result.put("server", database.serverVersion());
            result.put("records", statuses);
            result.put("loadSeconds", loadMillis / 1000.0);
            result.put("repeats", options.repeats());
            result.put("goalMillis", options.goalMillis());
            result.put("phases", phases);
            ResultFile.write(options.out(), result);
            System.out.println("Written to " + options.out());
            return 0;
        }
    }

    /** The queries, with filter values taken from the loaded table so that each filter matches what it should. */
    private static List<ConsoleQuery> queries(JdbcOutboxStores stores, JdbcTemplate jdbc) {
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(stores.records())
                .instances(stores.instances(), STALE_TIMEOUT).partitions(stores.partitions()).build();
        OutboxAdmin admin = OutboxAdmin.builder().store(stores.records()).build();
        long failed = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record WHERE status = 'FAILED'", Long.class);
        String middle = jdbc.queryForObject("SELECT sequence_no FROM outbox_record WHERE status = 'FAILED'"
                + " ORDER BY sequence_no OFFSET ? LIMIT 1", String.class, failed / 2);
        String aggregate = jdbc.queryForObject("SELECT aggregate_id FROM outbox_record WHERE status = 'FAILED'"
                + " ORDER BY sequence_no OFFSET ? LIMIT 1", String.class, failed / 3);
        FailedRecordFilter any = FailedRecordFilter.any();
        FailedRecordFilter handler = any.withHandlerId("handler-3");
        FailedRecordFilter eventType = any.withEventType("com.example.OrderEvent5");
        FailedRecordFilter byAggregate = any.withAggregateId(aggregate);
        FailedRecordFilter timeout = any.withErrorContaining("TIMED OUT");
        FailedRecordFilter noSuchError = any.withErrorContaining("no such error text");
        List<ConsoleQuery> queries = new ArrayList<>();
        queries.add(new ConsoleQuery("monitor refresh (all four)", monitor::refresh));
        queries.add(new ConsoleQuery("  records by status, all but COMPLETED",
                () -> stores.records().countByStoredStatusExceptCompleted()));
        queries.add(new ConsoleQuery("  NEW by partition and handler",
                () -> stores.records().pendingByPartitionAndHandler()));
        queries.add(new ConsoleQuery("  live instances", () -> stores.instances().findLive(STALE_TIMEOUT)));
        queries.add(new ConsoleQuery("  partition table", () -> stores.partitions().findAll()));
        queries.add(new ConsoleQuery("records by status, COMPLETED too (opt-in)",
                () -> stores.records().countByStoredStatus()));
        queries.add(page(admin, "page 1, oldest first", any, FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, newest first", any, FailedRecordOrder.NEWEST_FIRST, null));
        queries.add(page(admin, "deep page (cursor at half), oldest first", any, FailedRecordOrder.OLDEST_FIRST,
                middle));
        queries.add(page(admin, "deep page (cursor at half), newest first", any, FailedRecordOrder.NEWEST_FIRST,
                middle));
        queries.add(page(admin, "page 1, handler", handler, FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, event type", eventType, FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, aggregate id", byAggregate, FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, error text (a fifth match)", timeout,
                FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, error text (none match)", noSuchError, FailedRecordOrder.OLDEST_FIRST,
                null));
        queries.add(page(admin, "page 1, failed within P1D, newest first", within(any, "P1D"),
                FailedRecordOrder.NEWEST_FIRST, null));
        queries.add(page(admin, "page 1, failed within PT1H (none)", within(any, "PT1H"),
                FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(page(admin, "page 1, handler + error text", handler.withErrorContaining("refused"),
                FailedRecordOrder.OLDEST_FIRST, null));
        queries.add(count(admin, "count, unfiltered", any));
        queries.add(count(admin, "count, handler", handler));
        queries.add(count(admin, "count, event type", eventType));
        queries.add(count(admin, "count, aggregate id", byAggregate));
        queries.add(count(admin, "count, error text", timeout));
        queries.add(count(admin, "count, failed within P1D", within(any, "P1D")));
        List<String> firstPage = jdbc.queryForList("SELECT id FROM outbox_record WHERE status = 'FAILED'"
                + " ORDER BY sequence_no LIMIT ?", String.class, PAGE_SIZE);
        queries.add(new ConsoleQuery("held back by page 1's records", () -> admin.newBehind(firstPage)));
        queries.add(new ConsoleQuery("a partition's open records (click)", () -> admin.partitionRecords(17)));
        return queries;
    }

    /** The console's {@code failedWithin}: the last attempt fell due within {@code age} before now. */
    private static FailedRecordFilter within(FailedRecordFilter filter, String age) {
        return filter.lastAttemptDueBetween(Instant.now().minus(Duration.parse(age)), null);
    }

    private static ConsoleQuery page(OutboxAdmin admin, String name, FailedRecordFilter filter,
            FailedRecordOrder order, @Nullable String after) {
        return new ConsoleQuery(name, () -> admin.failedPage(filter, order, after, PAGE_SIZE));
    }

    private static ConsoleQuery count(OutboxAdmin admin, String name, FailedRecordFilter filter) {
        return new ConsoleQuery(name, () -> admin.countFailed(filter));
    }

    /** The connection that explains the library's statements, or null (said why) when the server refuses it. */
    private static @Nullable AutoExplain autoExplain(BenchDatabase database) {
        try {
            return AutoExplain.open(database.url(), database.user(), database.password());
        } catch (SQLException e) {
            System.out.println("  (no plans: auto_explain could not be loaded: " + e.getMessage() + ")");
            return null;
        }
    }

    /**
     * Runs each query over the goal once more on the auto_explain connection and adds the plans of its statements
     * (EXPLAIN ANALYZE, BUFFERS) to its figures and to the output.
     */
    @SuppressWarnings("unchecked")
    private static void explainOverGoal(Map<String, Object> figures, AutoExplain explain,
            List<ConsoleQuery> explained) {
        explain.plans();
        for (ConsoleQuery query : explained) {
            Map<String, Object> figure = (Map<String, Object>) figures.get(query.name().strip());
            if (!Boolean.TRUE.equals(figure.get("overGoal"))) {
                continue;
            }
            query.run().run();
            List<String> plans = explain.plans();
            figure.put("plans", plans);
            System.out.printf("%nPlans of \"%s\":%n%s%n", query.name().strip(), String.join("\n", plans));
        }
    }

    /** Runs every query {@code repeats} times in turn (so that no query's runs all find the cache it left warm). */
    private static Map<String, Object> measure(String phase, List<ConsoleQuery> queries, int repeats,
            int goalMillis, String databaseName, @Nullable AutoExplain explain,
            @Nullable List<ConsoleQuery> explained) {
        ForeignLoad foreign = ForeignLoad.start(databaseName, Set::of);
        long[][] micros = new long[queries.size()][repeats];
        for (int round = 0; round < repeats; round++) {
            for (int q = 0; q < queries.size(); q++) {
                long start = System.nanoTime();
                queries.get(q).run().run();
                micros[q][round] = (System.nanoTime() - start) / 1_000;
            }
        }
        Map<String, Object> load = foreign.summary();
        System.out.printf("%n%s, %d runs each (ms); other processes took %s %% of the machine meanwhile:%n", phase,
                repeats, load.get("percentOfMachine"));
        System.out.printf("%-44s %9s %9s %9s%n", "query", "median", "max", "first");
        Map<String, Object> figures = new LinkedHashMap<>();
        for (int q = 0; q < queries.size(); q++) {
            long[] sorted = micros[q].clone();
            Arrays.sort(sorted);
            double median = Stats.millis(Stats.percentile(sorted, 0.5));
            double max = Stats.millis(sorted[sorted.length - 1]);
            double firstRun = Stats.millis(micros[q][0]);
            String name = queries.get(q).name();
            System.out.printf("%-44s %9.1f %9.1f %9.1f%s%n", name, median, max, firstRun,
                    max > goalMillis ? "  over " + goalMillis + " ms" : "");
            Map<String, Object> figure = new LinkedHashMap<>();
            figure.put("medianMillis", median);
            figure.put("maxMillis", max);
            figure.put("firstMillis", firstRun);
            figure.put("overGoal", max > goalMillis);
            figures.put(name.strip(), figure);
        }
        if (explain != null && explained != null) {
            explainOverGoal(figures, explain, explained);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("foreignLoad", load);
        result.put("queries", figures);
        return result;
    }
}
