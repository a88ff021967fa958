package dev.outbox.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.TestBrokers;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.api.Timeout;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Runs the whole benchmark, driver in this JVM and nodes as JVMs of their own, with tiny parameters, so that the build
 * keeps it working: every measurement must be in the JSON, without duplicates, order violations or missing records;
 * each drain cold and warm (the same node JVMs, held and let go again on a second backlog).
 *
 * <p>PostgreSQL as in the rest of the project: {@code OUTBOX_TEST_POSTGRES_URL} (with {@code OUTBOX_TEST_POSTGRES_USER}
 * and {@code OUTBOX_TEST_POSTGRES_PASSWORD}) when set, else {@code jdbc:postgresql://127.0.0.1:5432/test} as
 * {@code postgres}. Without an answering server the test is skipped, or fails when {@code OUTBOX_TEST_REQUIRE_DB=true}.
 */
class BenchmarkSmokeTest {

    private static final Path OUT = Path.of("target", "benchmark-smoke", "benchmark.json");

    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void everyMeasurementRunsAndEveryCheckHolds() throws Exception {
        Database db = database();
        String url = db.url();
        String user = db.user();
        String password = db.password();

        BenchmarkDriver.Outcome outcome = BenchmarkDriver.run(BenchmarkOptions.parse(new String[] {
                "--url=" + url, "--user=" + user, "--password=" + password,
                "--records=2000", "--aggregates=200",
                "--latency-seconds=3", "--latency-rate=100", "--warmup-seconds=1",
                "--idle-seconds=3", "--settle-seconds=1",
                "--drain-timeout-seconds=60",
                // The drains' most involved preparation; the driver fails a drain whose statistics are not as claimed.
                "--statistics=stale",
                "--out=" + OUT,
                // Not measuring here: quicker JVM start-up for the seven node JVMs.
                "--node-jvm-option=-Xmx256m", "--node-jvm-option=-XX:TieredStopAtLevel=1",
                "--node-jvm-option=-XX:+UseSerialGC"}));

        JsonNode json = JsonMapper.builder().build().readTree(OUT.toFile());
        assertThat(json.path("environment").path("nproc").asInt()).isPositive();
        assertThat(json.path("environment").path("jdk").asString()).isNotBlank();
        assertThat(json.path("environment").path("postgres").asString()).contains("PostgreSQL");
        assertThat(json.path("parameters").path("records").asInt()).isEqualTo(2000);
        assertThat(json.path("parameters").path("statistics").asString()).isEqualTo("stale");
        assertThat(json.path("totalSeconds").asDouble()).isPositive();

        JsonNode measurements = json.path("measurements");
        for (String name : List.of("dbLimit", "drain1", "drain2", "latency1", "latency2", "idle")) {
            assertThat(measurements.has(name)).as(name).isTrue();
            assertThat(measurements.path(name).has("error")).as(name + ": " + measurements.path(name).path("error"))
                    .isFalse();
        }

        JsonNode limit = measurements.path("dbLimit");
        assertThat(limit.path("insertRecordsPerSecond").asDouble()).isPositive();
        assertThat(limit.path("updateRecordsPerSecond").asDouble()).isPositive();

        for (String name : List.of("drain1", "drain2")) {
            JsonNode drain = measurements.path(name);
            assertDrained(name, drain);
            JsonNode warm = drain.path("warm");
            assertThat(warm.has("error")).as(name + ".warm: " + warm.path("error")).isFalse();
            assertDrained(name + ".warm", warm);
            assertThat(warm.path("handlerCallsBefore").asLong()).as(name + ".warm: counted from the cold drain's calls")
                    .isEqualTo(drain.path("checks").path("handlerCalls").asLong());
        }
        assertThat(measurements.path("drain2").path("checks").path("callsPerInstance").propertyNames())
                .containsExactlyInAnyOrder("node-1", "node-2");
        assertThat(measurements.path("drain2").path("warm").path("checks").path("callsPerInstance").propertyNames())
                .containsExactlyInAnyOrder("node-1", "node-2");

        for (String name : List.of("latency1", "latency2")) {
            JsonNode latency = measurements.path(name);
            assertThat(latency.path("recordsProduced").asInt()).as(name).isEqualTo(300);
            assertThat(latency.path("recordsMeasured").asInt()).as(name).isEqualTo(200);
            JsonNode stats = latency.path("commitToHandlerLatency");
            for (String field : List.of("p50Ms", "p95Ms", "p99Ms", "maxMs")) {
                assertThat(stats.has(field)).as(name + "." + field).isTrue();
            }
            assertThat(stats.path("p50Ms").asDouble()).isLessThanOrEqualTo(stats.path("maxMs").asDouble());
            assertThat(latency.has("maxBacklog")).as(name).isTrue();
            assertChecksHold(name, latency.path("checks"), 300);
        }

        JsonNode idle = measurements.path("idle");
        assertThat(idle.path("queriesPerSecond").asDouble()).isPositive();
        assertThat(idle.path("commitsPerSecond").isNumber()).as("commits/s from pg_stat_database").isTrue();
        assertThat(idle.path("commitsPerSecond").asDouble()).isNotNegative();
        assertThat(idle.path("queriesPerSecondByType").propertyNames()).isNotEmpty();

        assertThat(outcome.exitCode()).isZero();
    }

    private static void assertDrained(String name, JsonNode drain) {
        assertThat(drain.path("write").path("recordsPerSecond").asDouble()).as(name).isPositive();
        assertThat(drain.path("recordsPerSecond").asDouble()).as(name).isPositive();
        assertThat(drain.path("ratioToDbLimitUpdate").asDouble()).as(name).isPositive();
        assertThat(drain.path("statusCounts").path("COMPLETED").asLong()).as(name).isEqualTo(2000);
        // the nodes fetch nothing before the start gate opens, so a drain is measured from its start
        assertThat(drain.path("goToFirstCallMs").asDouble()).as(name + ": first handler call after the gate")
                .isNotNegative();
        assertChecksHold(name, drain.path("checks"), 2000);
        JsonNode statistics = drain.path("statistics");
        assertThat(statistics.path("mode").asString()).as(name).isEqualTo("stale");
        assertThat(statistics.path("pgStatsStatusMostCommonValues").asString()).as(name).isEqualTo("{COMPLETED}");
        assertThat(statistics.path("plannedNewRows").asLong()).as(name + ": NEW rows the planner expects")
                .isLessThanOrEqualTo(20);
        assertThat(drain.path("cpu").path("nodeCpuSeconds").size()).as(name).isPositive();
    }

    private static void assertChecksHold(String name, JsonNode checks, long records) {
        assertThat(checks.path("duplicates").asLong()).as(name + " duplicates").isZero();
        assertThat(checks.path("orderViolations").asLong()).as(name + " order violations: "
                + checks.path("violationExamples")).isZero();
        assertThat(checks.path("missing").asLong()).as(name + " missing").isZero();
        assertThat(checks.path("distinctRecords").asLong()).as(name + " handled").isEqualTo(records);
    }

    /**
     * The publisher benchmark with tiny parameters: every target measured, every destination holds each record
     * once, in order, and each broker's plain client published the drained records' messages. RabbitMQ and NATS are found as in the publishers' own tests ({@code OUTBOX_TEST_RABBITMQ_URL},
     * {@code OUTBOX_TEST_NATS_URL}, else the local servers).
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void everyPublisherIsMeasuredAndEveryDestinationHoldsEachRecordInOrder() throws Exception {
        Database db = database();
        String url = db.url();
        String user = db.user();
        String password = db.password();
        String rabbitmq = TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672");
        String nats = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        Path out = Path.of("target", "benchmark-smoke", "publisher-benchmark.json");

        PublisherBenchmark.Outcome outcome = PublisherBenchmark.run(PublisherBenchmark.Options.parse(new String[] {
            "--publishers", "--url=" + url, "--user=" + user, "--password=" + password, "--records=1000",
            "--aggregates=100", "--latency-rate=100", "--latency-seconds=1", "--rabbitmq-url=" + rabbitmq,
            "--nats-url=" + nats, "--out=" + out}));

        JsonNode measurements = JsonMapper.builder().build().readTree(out.toFile()).path("measurements");
        for (String name : List.of("noop", "kafka", "rabbitmq", "nats")) {
            JsonNode measured = measurements.path(name);
            assertThat(measured.has("error")).as(name + ": " + measured.path("error")).isFalse();
            assertThat(measured.path("drainRecordsPerSecond").asDouble()).as(name).isPositive();
            assertThat(measured.path("drainRatioToNoop").asDouble()).as(name).isPositive();
            assertThat(measured.path("latency").path("count").asInt()).as(name).isEqualTo(100);
            assertThat(measured.path("withoutAcknowledgement").asInt()).as(name).isZero();
            if (!name.equals("noop")) {
                JsonNode readBack = measured.path("readBack");
                assertThat(readBack.path("written").asInt()).as(name + ": warm-up, drain, latency").isEqualTo(2100);
                assertThat(readBack.path("missing").asInt()).as(name + " missing").isZero();
                assertThat(readBack.path("unknown").asInt()).as(name + " unknown").isZero();
                assertThat(readBack.path("aggregatesOutOfOrder").asInt()).as(name + " out of order").isZero();
                assertThat(measured.path("handlerIds").get(0).asString()).isEqualTo(name);
                JsonNode plainClient = measured.path("plainClient");
                assertThat(measured.has("plainClientError")).as(name + ": " + measured.path("plainClientError"))
                        .isFalse();
                assertThat(plainClient.path("messages").asInt()).as(name + " plain client").isEqualTo(1000);
                assertThat(plainClient.path("window").asInt()).as(name + " plain client").isEqualTo(1000);
                assertThat(measured.path("plainClientMessagesPerSecond").asDouble()).as(name).isPositive();
                assertThat(measured.path("drainRatioToPlainClient").asDouble()).as(name).isPositive();
            } else {
                assertThat(measured.has("plainClient")).as("no plain client for the no-op handler").isFalse();
            }
        }
        assertThat(outcome.passed()).isTrue();
    }

    /**
     * The transactional-handler benchmark with tiny parameters: both drains measured in each repetition, the
     * projection holds one row per record, in each aggregate's order, with each aggregate's counter right, and the
     * projection's writes are measured alone for the same records.
     */
    @Test
    @Timeout(value = 240, unit = TimeUnit.SECONDS)
    void theTransactionalProjectionIsMeasuredAgainstTheNoopAndChecked() throws Exception {
        Database db = database();
        Path out = Path.of("target", "benchmark-smoke", "transactional-benchmark.json");

        TransactionalBenchmark.Outcome outcome = TransactionalBenchmark.run(TransactionalOptions.parse(new String[] {
            "--transactional", "--url=" + db.url(), "--user=" + db.user(), "--password=" + db.password(),
            "--records=300", "--aggregates=30", "--warmup-records=100", "--repetitions=2", "--out=" + out}));

        JsonNode json = JsonMapper.builder().build().readTree(out.toFile());
        assertThat(json.path("parameters").path("records").asInt()).isEqualTo(300);
        JsonNode repetitions = json.path("repetitions");
        assertThat(repetitions.size()).isEqualTo(2);
        for (JsonNode measured : repetitions) {
            for (String name : List.of("noop", "transactional")) {
                JsonNode drain = measured.path(name);
                assertThat(drain.has("error")).as(name + ": " + drain.path("error")).isFalse();
                assertThat(drain.path("drainRecordsPerSecond").asDouble()).as(name).isPositive();
            }
            assertThat(measured.path("ratioToNoop").asDouble()).isPositive();
            JsonNode checks = measured.path("transactional").path("checks");
            assertThat(checks.path("rows").asLong()).isEqualTo(300);
            assertThat(checks.path("aggregates").asLong()).isEqualTo(30);
            for (String violation : List.of("duplicates", "missing", "unknown", "wrongAggregateOrSequence",
                    "orderViolations", "wrongCounters", "notCompleted")) {
                assertThat(checks.path(violation).asLong()).as(violation).isZero();
            }
            assertThat(checks.path("passed").asBoolean()).isTrue();
            // The handler's writes alone, for the same 300 records, and the drain against both costs added up.
            JsonNode alone = measured.path("transactional").path("writesAlone");
            assertThat(alone.path("records").asInt()).isEqualTo(300);
            assertThat(alone.path("recordsPerSecond").asDouble()).isPositive();
            assertThat(measured.path("transactional").path("completionStatements").asLong()).isBetween(1L, 300L);
            assertThat(measured.path("ratioToNoopPlusWrites").asDouble()).isPositive();
        }
        assertThat(json.path("summary").path("ratioToNoopMedian").asDouble()).isPositive();
        assertThat(json.path("summary").path("ratioToNoopPlusWritesMedian").asDouble()).isPositive();
        assertThat(outcome.exitCode()).isZero();
    }

    /**
     * The latency benchmark from a node's start with tiny parameters: each rate from a fresh node, every record measured
     * (none left out), the first seconds and each second apart; the same for the plain-JDBC reference relay.
     */
    @Test
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theLatencyFromStartMeasuresEveryRecordOfEachRate() throws Exception {
        Database db = database();
        Path out = Path.of("target", "benchmark-smoke", "latency-benchmark.json");

        StartupLatency.Outcome outcome = StartupLatency.run(StartupLatency.Options.parse(new String[] {
            "--latency", "--url=" + db.url(), "--user=" + db.user(), "--password=" + db.password(),
            "--rates=50,100", "--seconds=2", "--first-seconds=1", "--driver-warmup-seconds=1", "--aggregates=20",
            "--out=" + out, "--node-jvm-option=-Xmx256m", "--node-jvm-option=-XX:TieredStopAtLevel=1"}));

        JsonNode runs = JsonMapper.builder().build().readTree(out.toFile()).path("runs");
        assertThat(runs.propertyNames()).containsExactly("50", "100");
        for (String rate : List.of("50", "100")) {
            JsonNode run = runs.path(rate);
            int records = 2 * Integer.parseInt(rate);
            assertThat(run.path("recordsProduced").asInt()).as(rate).isEqualTo(records);
            assertThat(run.path("latencyWholeRun").path("count").asInt()).as(rate + ": none left out")
                    .isEqualTo(records);
            assertThat(run.path("latencyFirstSeconds").path("count").asInt()).as(rate).isEqualTo(records / 2);
            assertThat(run.path("latencyWholeRun").has("p99Ms")).isTrue();
            assertThat(run.path("producerLateByMsFirstSeconds").has("maxMs")).isTrue();
            assertThat(run.path("perSecond")).hasSize(2);
            assertThat(run.path("nodeStartToReadyMs").asLong()).isPositive();
            assertChecksHold(rate, run.path("checks"), records);
            JsonNode reference = run.path("listenReference");
            assertThat(reference.path("latencyWholeRun").path("count").asInt()).as(rate + ": the reference's")
                    .isEqualTo(records);
            assertThat(reference.path("perSecond")).hasSize(2);
            assertChecksHold(rate + ": the reference", reference.path("checks"), records);
            assertThat(run.path("p99ToReference").isNumber()).as(rate).isTrue();
        }
        assertThat(outcome.passed()).isTrue();
    }

    /**
     * The write benchmark with tiny parameters, on each starter's write path: every rate measured, every transaction
     * timed.
     */
    @ParameterizedTest
    @ValueSource(strings = {"jpa", "jdbc"})
    @Timeout(value = 300, unit = TimeUnit.SECONDS)
    void theWriteBenchmarkMeasuresEveryTransactionSizeAndBothLatencies(String starter) throws Exception {
        Database db = database();
        String url = db.url();
        String user = db.user();
        String password = db.password();
        Path out = Path.of("target", "benchmark-smoke", "write-benchmark-" + starter + ".json");

        WriteBenchmark.run(WriteBenchmark.Options.parse(new String[] {
            "--write", "--url=" + url, "--user=" + user, "--password=" + password, "--records=400",
            "--transactions=20", "--payload-bytes=500", "--starter=" + starter, "--out=" + out}));

        JsonNode result = JsonMapper.builder().build().readTree(out.toFile());
        assertThat(result.path("transactionManager").asString()).as("the starter's transactions")
                .isEqualTo(starter.equals("jpa") ? "JpaTransactionManager" : "JdbcTransactionManager");
        JsonNode throughput = result.path("throughput");
        assertThat(throughput).hasSize(3);
        for (JsonNode measured : throughput) {
            assertThat(measured.path("outboxRecordsPerSecond").asLong()).isPositive();
            assertThat(measured.path("jdbcRecordsPerSecond").asLong()).isPositive();
            assertThat(measured.path("payloadBytes").asInt()).as("padded payload").isBetween(450, 550);
        }
        assertThat(throughput.get(0).path("records").asInt()).as("a quarter at one per transaction").isEqualTo(100);
        assertThat(result.path("latency").path("withoutRecord").path("count").asInt()).isEqualTo(20);
        assertThat(result.path("latency").path("withRecord").path("count").asInt()).isEqualTo(20);
    }

    /**
     * The bloat benchmark with tiny parameters: all four combinations of mode and completed records, each without and
     * with the snapshot, measured and checked.
     */
    @Test
    @Timeout(value = 900, unit = TimeUnit.SECONDS)
    void theBloatBenchmarkMeasuresEveryCombinationWithAndWithoutTheSnapshot() throws Exception {
        Database db = database();
        Path out = Path.of("target", "benchmark-smoke", "bloat-benchmark.json");

        BloatBenchmark.Outcome outcome = BloatBenchmark.run(BloatBenchmark.Options.parse(new String[] {
            "--bloat", "--url=" + db.url(), "--user=" + db.user(), "--password=" + db.password(), "--records=600",
            "--rate=200", "--aggregates=60", "--snapshot-seconds=30", "--warmup-seconds=1", "--out=" + out,
            "--node-jvm-option=-Xmx256m", "--node-jvm-option=-XX:TieredStopAtLevel=1",
            "--node-jvm-option=-XX:+UseSerialGC"}));

        JsonNode measurements = JsonMapper.builder().build().readTree(out.toFile()).path("measurements");
        for (String mode : List.of("steady", "backlog")) {
            for (String completed : List.of("kept", "deleted")) {
                for (String snapshot : List.of("clean", "snapshot")) {
                    String name = mode + "-" + completed + "-" + snapshot;
                    JsonNode measured = measurements.path(name);
                    assertThat(measured.has("error")).as(name + ": " + measured.path("error")).isFalse();
                    assertChecksHold(name, measured.path("checks"), 600);
                    assertThat(measured.path("table").path("totalBytes").asLong()).as(name).isPositive();
                    assertThat(measured.path("table").has("deadTuples")).as(name).isTrue();
                    assertThat(measured.path("table").path("tuplesReadPerRecord").asDouble()).as(name).isPositive();
                    assertThat(measured.path("dueFetchPlan").path("plan").size()).as(name).isPositive();
                    assertThat(measured.path("snapshotHeld").isNull()).as(name).isEqualTo(snapshot.equals("clean"));
                    if (mode.equals("steady")) {
                        assertThat(measured.path("commitToHandlerLatency").path("p99Ms").isNumber()).as(name).isTrue();
                    } else {
                        assertThat(measured.path("recordsPerSecond").asDouble()).as(name).isPositive();
                    }
                }
                assertThat(measurements.path(mode + "-" + completed + "-ratio").path("rateSnapshotOverClean")
                        .asDouble()).isPositive();
            }
        }
        assertThat(outcome.exitCode()).isZero();
    }

    record Database(String url, String user, String password) {
    }

    /** The PostgreSQL server of the tests: {@code OUTBOX_TEST_POSTGRES_*}, else the local one; checked to answer. */
    static Database database() {
        Database db = new Database(env("OUTBOX_TEST_POSTGRES_URL", BenchmarkOptions.DEFAULT_URL),
                env("OUTBOX_TEST_POSTGRES_USER", "postgres"), env("OUTBOX_TEST_POSTGRES_PASSWORD", ""));
        requireDatabase(db.url(), db.user(), db.password());
        return db;
    }

    private static void requireDatabase(String url, String user, String password) {
        String problem;
        try (Connection connection = BenchDatabase.connect(url, user, password)) {
            if (connection.isValid(3)) {
                return;
            }
            problem = "connection not valid";
        } catch (SQLException e) {
            problem = e.getMessage();
        }
        String message = "No PostgreSQL at " + url + " as " + user + " (" + problem + "); set OUTBOX_TEST_POSTGRES_URL"
                + " (and OUTBOX_TEST_POSTGRES_USER, OUTBOX_TEST_POSTGRES_PASSWORD) to one that may CREATE DATABASE";
        if ("true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_DB"))) {
            throw new IllegalStateException(message);
        }
        Assumptions.abort(message);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
