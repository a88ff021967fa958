package dev.outbox.boot.acceptance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.testing.MutableClock;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The behaviour users rely on, run through a starter against a real database: one subclass per database and starter.
 * Every test starts the application the way users do (auto-configuration, Liquibase schema, a business table written
 * in the same transactions as the records: a JPA entity here, {@code JdbcClient} in outbox-starter-jdbc).
 */
public abstract class AbstractOutboxAcceptanceTest extends DatabasePerTestClass {

    /**
     * The application under test: {@link AcceptanceApplication} (JPA) by default. Another must have a
     * {@link TestOrderService} bean writing the {@code test_order} table.
     */
    protected Class<?> applicationClass() {
        return AcceptanceApplication.class;
    }

    protected static final Duration DEADLINE = Duration.ofSeconds(120);

    /** The outbox tables the applications use: the default ones unless a subclass names others. */
    protected OutboxTables tables(TestDatabase database) {
        return OutboxTables.defaults();
    }

    private @Nullable SqlStatements sql;

    private final List<ConfigurableApplicationContext> contexts = new ArrayList<>();
    private RecordingProcessor processor;

    @BeforeEach
    final void emptyTables() {
        processor = new RecordingProcessor();
        deleteRowsOf(sql().recordTable(), "test_order");
    }

    @AfterEach
    final void closeContexts() {
        contexts.forEach(ConfigurableApplicationContext::close);
        contexts.clear();
    }

    @Test
    final void recordCommitsWithTheBusinessChange() {
        ConfigurableApplicationContext app = start(null, "outbox.processing.enabled=false");

        OutboxRecord saved = app.getBean(TestOrderService.class).placeOrder("order-1", 42);

        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM test_order WHERE id = 'order-1'", Integer.class))
                .isEqualTo(1);
        List<OutboxRecord> stored = repository(app).findByAggregateId("order-1");
        assertThat(stored).singleElement().satisfies(record -> {
            assertThat(record.getId()).isEqualTo(saved.getId());
            assertThat(record.getEventType()).isEqualTo("OrderPlaced");
            assertThat(record.getPayload()).isEqualTo("{\"orderId\":\"order-1\",\"amount\":42}");
            assertThat(record.getPartition()).isEqualTo(PartitionHasher.partitionOf("order-1"));
            assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
            assertThat(record.getSequence()).isNotNull();
        });
    }

    @Test
    final void recordRollsBackWithTheBusinessChange() {
        ConfigurableApplicationContext app = start(null, "outbox.processing.enabled=false");
        TestOrderService service = app.getBean(TestOrderService.class);
        service.placeOrder("order-kept", 1);

        assertThatThrownBy(() -> service.placeOrderThenFail("order-lost", 2))
                .hasMessageContaining("business rule violated");

        assertThat(jdbc().queryForList("SELECT id FROM test_order", String.class)).containsExactly("order-kept");
        assertThat(jdbc().queryForList("SELECT aggregate_id FROM " + sql().recordTable(), String.class))
                .containsExactly("order-kept");
    }

    // GH-12: PostgreSQL refused U+0000 at flush, failing the business transaction with a database error, while H2
    // and MariaDB stored it. Every database now refuses it the same way, before anything is written.
    @Test
    final void aNulCharacterIsRefusedWhenTheRecordIsBuiltAndNothingIsWritten() {
        ConfigurableApplicationContext app = start(null, "outbox.processing.enabled=false");
        TestOrderService service = app.getBean(TestOrderService.class);

        assertThatThrownBy(() -> service.placeOrderWithEvent("order-1", "order\u00001", "{}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("aggregateId contains the character U+0000 (at index 5)");
        assertThatThrownBy(() -> service.placeOrderWithEvent("order-2", "order-2", "{\"note\":\"a\u0000b\"}"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("payload contains the character U+0000 (at index 10)");

        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM test_order", Integer.class)).isZero();
        assertThat(jdbc().queryForObject("SELECT COUNT(*) FROM " + sql().recordTable(), Integer.class)).isZero();
    }

    @Test
    final void theWritersHeadersAndMdcReachTheHandlerAndTheMdcIsClearedAfterIt() {
        ConfigurableApplicationContext app = start(null, "outbox.poll-interval=50ms",
                "outbox.context.mdc-keys=tenant,correlationId", "outbox.processing.concurrency=1");
        Map<String, Map<String, String>> mdcByAggregate = new ConcurrentHashMap<>();
        processor.beforeHandling(record -> {
            Map<String, String> seen = new LinkedHashMap<>();
            seen.put("tenant", String.valueOf(MDC.get("tenant")));
            seen.put("correlationId", String.valueOf(MDC.get("correlationId")));
            mdcByAggregate.put(record.getAggregateId(), seen);
        });
        OutboxRecordRepository records = repository(app);
        Clock clock = app.getBean(Clock.class);
        TransactionTemplate transaction = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        MDC.put("tenant", "acme");
        MDC.put("correlationId", "req-42");
        try {
            transaction.executeWithoutResult(status -> records.save(OutboxRecord.builder().aggregateId("with-mdc")
                    .eventType("OrderPlaced").payload("{}").header("source", "web").build(clock)));
        } finally {
            MDC.clear();
        }
        await().atMost(DEADLINE).until(() -> mdcByAggregate.containsKey("with-mdc"));
        transaction.executeWithoutResult(status -> records.save(OutboxRecord.builder().aggregateId("without-mdc")
                .eventType("OrderPlaced").payload("{}").build(clock)));
        await().atMost(DEADLINE).until(() -> mdcByAggregate.containsKey("without-mdc"));

        assertThat(mdcByAggregate.get("with-mdc")).containsEntry("tenant", "acme")
                .containsEntry("correlationId", "req-42");
        assertThat(mdcByAggregate.get("without-mdc")).as("cleared after the first handler call, same worker")
                .containsEntry("tenant", "null").containsEntry("correlationId", "null");
        assertThat(records.findByAggregateId("with-mdc")).singleElement().satisfies(record -> assertThat(
                record.getHeaders()).containsExactly(Map.entry("source", "web"), Map.entry("tenant", "acme"),
                        Map.entry("correlationId", "req-42")));
        assertThat(processor.handled()).filteredOn(record -> record.getAggregateId().equals("with-mdc"))
                .singleElement().satisfies(record -> assertThat(record.getHeaders()).containsEntry("source", "web"));
    }

    @Test
    final void thousandRecordsOverFiftyAggregatesAreHandledInPerAggregateOrder() {
        ConfigurableApplicationContext app = start(null, "outbox.poll-interval=50ms", "outbox.batch-size=64",
                "outbox.processing.concurrency=4");
        Outbox outbox = app.getBean(Outbox.class);
        TransactionTemplate transactions = new TransactionTemplate(app.getBean(PlatformTransactionManager.class));
        for (int chunk = 0; chunk < 10; chunk++) {
            int first = chunk * 100;
            transactions.executeWithoutResult(status -> {
                for (int n = first; n < first + 100; n++) {
                    outbox.schedule(new Numbered(n), "aggregate-" + (n % 50));
                }
            });
        }

        await().atMost(DEADLINE).until(() -> processor.handled().size() >= 1000);

        assertThat(processor.handled()).hasSize(1000);
        assertThat(new HashSet<>(processor.handled().stream().map(OutboxRecord::getId).toList())).hasSize(1000);
        Map<String, List<String>> byAggregate = processor.handledPayloadsByAggregate();
        assertThat(byAggregate).hasSize(50);
        for (int aggregate = 0; aggregate < 50; aggregate++) {
            int a = aggregate;
            List<String> expected = IntStream.range(0, 1000).filter(n -> n % 50 == a)
                    .mapToObj(n -> "{\"n\":" + n + "}").toList();
            assertThat(byAggregate.get("aggregate-" + a)).as("order of aggregate-%d", a).isEqualTo(expected);
        }
        await().atMost(DEADLINE).until(() -> repository(app).countByStatus(OutboxRecordStatus.COMPLETED) == 1000);
    }

    @Test
    final void aCommittedRecordWakesTheProcessorWithoutWaitingForThePollInterval() {
        ConfigurableApplicationContext app = start(null, "outbox.poll-interval=1h");
        TestOrderService service = app.getBean(TestOrderService.class);

        // The poll interval is an hour: once the first record is handled the loop sleeps for an hour, so only the
        // after-commit wake-up can deliver the second one within the deadline.
        service.placeOrder("order-first", 5);
        await().atMost(DEADLINE).until(() -> processor.handled().size() == 1);
        service.placeOrder("order-second", 6);
        await().atMost(DEADLINE).until(() -> processor.handled().size() == 2);

        assertThat(processor.handled()).extracting(OutboxRecord::getAggregateId)
                .containsExactly("order-first", "order-second");
    }

    @Test
    final void failingRecordHoldsBackItsAggregateButNotOthers() {
        MutableClock clock = MutableClock.startingNow();
        ConfigurableApplicationContext app = start(clock, "outbox.processing.enabled=false",
                "outbox.retry.policy=fixed", "outbox.retry.fixed.delay=10s");
        TestOrderService service = app.getBean(TestOrderService.class);
        service.recordEvent("A", "Step", "a1");
        OutboxRecord a2 = service.recordEvent("A", "Step", "a2");
        service.recordEvent("A", "Step", "a3");
        service.recordEvent("B", "Step", "b1");
        service.recordEvent("B", "Step", "b2");
        processor.failPayload("a2");

        processManually(app);

        assertThat(processor.handledPayloads()).containsExactlyInAnyOrder("a1", "b1", "b2");
        assertThat(processor.invocationsOf("a2")).isEqualTo(1);
        assertThat(processor.invocationsOf("a3")).isZero();
        OutboxRecord waiting = repository(app).findById(a2.getId()).orElseThrow();
        assertThat(waiting.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(waiting.getRetryCount()).isEqualTo(1);
        assertThat(waiting.getNextRetryAt()).isEqualTo(clock.instant().plusSeconds(10));
        assertThat(waiting.getLastError()).contains("downstream rejected a2");

        assertThat(processManually(app)).as("nothing is due before the retry time").isZero();
        assertThat(processor.invocationsOf("a3")).isZero();

        clock.advance(Duration.ofSeconds(10));
        processor.stopFailingPayload("a2");
        processManually(app);

        assertThat(processor.handledPayloadsByAggregate().get("A")).containsExactly("a1", "a2", "a3");
        assertThat(repository(app).countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(5);
    }

    @Test
    final void withoutStopOnFirstFailureLaterRecordsOfTheAggregateProceed() {
        MutableClock clock = MutableClock.startingNow();
        ConfigurableApplicationContext app = start(clock, "outbox.processing.enabled=false",
                "outbox.processing.stop-on-first-failure=false", "outbox.retry.policy=fixed",
                "outbox.retry.fixed.delay=10s");
        TestOrderService service = app.getBean(TestOrderService.class);
        service.recordEvent("A", "Step", "a1");
        OutboxRecord a2 = service.recordEvent("A", "Step", "a2");
        service.recordEvent("A", "Step", "a3");
        processor.failPayload("a2");

        processManually(app);

        assertThat(processor.handledPayloads()).containsExactly("a1", "a3");
        assertThat(repository(app).findById(a2.getId()).orElseThrow().getRetryCount()).isEqualTo(1);

        clock.advance(Duration.ofSeconds(10));
        processor.stopFailingPayload("a2");
        processManually(app);
        assertThat(processor.handledPayloads()).containsExactly("a1", "a3", "a2");
    }

    @Test
    final void retriesWaitExactlyAsLongAsThePolicySays() {
        MutableClock clock = MutableClock.startingNow();
        ConfigurableApplicationContext app = start(clock, "outbox.processing.enabled=false",
                "outbox.retry.policy=exponential", "outbox.retry.exponential.initial-delay=1s",
                "outbox.retry.exponential.multiplier=2.0", "outbox.retry.exponential.max-delay=3s",
                "outbox.retry.max-retries=5");
        OutboxRecord record = app.getBean(TestOrderService.class).recordEvent("A", "Step", "always-fails");
        processor.failPayload("always-fails");

        processManually(app);
        List<Duration> expectedDelays = List.of(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(3),
                Duration.ofSeconds(3));
        for (int retry = 1; retry <= expectedDelays.size(); retry++) {
            Duration delay = expectedDelays.get(retry - 1);
            OutboxRecord stored = repository(app).findById(record.getId()).orElseThrow();
            assertThat(stored.getRetryCount()).isEqualTo(retry);
            assertThat(stored.getNextRetryAt()).isEqualTo(clock.instant().plus(delay));

            clock.advance(delay.minusMillis(1));
            assertThat(processManually(app)).as("retry %d is not due 1 ms early", retry).isZero();
            clock.advance(Duration.ofMillis(1));
            assertThat(processManually(app)).as("retry %d is due on time", retry).isEqualTo(1);
        }
        assertThat(processor.invocationsOf("always-fails")).isEqualTo(5);
    }

    @Test
    final void recordBecomesFailedAfterMaxRetriesWithItsErrorStored() {
        MutableClock clock = MutableClock.startingNow();
        ConfigurableApplicationContext app = start(clock, "outbox.processing.enabled=false",
                "outbox.retry.policy=fixed", "outbox.retry.fixed.delay=1s", "outbox.retry.max-retries=2");
        TestOrderService service = app.getBean(TestOrderService.class);
        OutboxRecord poison = service.recordEvent("A", "Step", "poison");
        service.recordEvent("A", "Step", "after-poison");
        processor.failPayload("poison");

        for (int pass = 0; pass < 5; pass++) {
            processManually(app);
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(processor.invocationsOf("poison")).as("first attempt and max-retries=2 retries").isEqualTo(3);
        OutboxRecord failed = repository(app).findById(poison.getId()).orElseThrow();
        assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(failed.getRetryCount()).isEqualTo(2);
        assertThat(failed.getLastError()).contains("IllegalStateException").contains("downstream rejected poison");
        assertThat(processor.invocationsOf("after-poison")).as("held back by the FAILED record").isZero();

        service.recordEvent("B", "Step", "other-aggregate");
        processManually(app);
        assertThat(processor.handledPayloads()).containsExactly("other-aggregate");
    }

    @Test
    final void restartedApplicationResumesUnprocessedRecords() throws Exception {
        CountDownLatch holdFirstRun = new CountDownLatch(1);
        CountDownLatch hundredthStarted = new CountDownLatch(1);
        AtomicInteger started = new AtomicInteger();
        processor.beforeHandling(record -> {
            if (started.incrementAndGet() == 100) {
                hundredthStarted.countDown();
                awaitQuietly(holdFirstRun);
            }
        });
        ConfigurableApplicationContext first = start(null, "outbox.poll-interval=50ms", "outbox.batch-size=10",
                "outbox.processing.concurrency=2");
        Outbox outbox = first.getBean(Outbox.class);
        TransactionTemplate transactions = new TransactionTemplate(first.getBean(PlatformTransactionManager.class));
        transactions.executeWithoutResult(status -> {
            for (int n = 0; n < 300; n++) {
                outbox.schedule(new Numbered(n), "aggregate-" + (n % 7));
            }
        });
        OutboxProcessor firstProcessor = first.getBean(OutboxProcessor.class);
        assertThat(hundredthStarted.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        // Shut the first application down while a handler is in flight; let that handler finish during the drain.
        CompletableFuture<Void> closing = CompletableFuture.runAsync(first::close);
        await().atMost(DEADLINE).until(() -> !firstProcessor.isRunning());
        holdFirstRun.countDown();
        closing.get(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        contexts.remove(first);
        int handledByFirst = processor.handled().size();
        assertThat(handledByFirst).isBetween(100, 299);
        processor.beforeHandling(record -> { });

        ConfigurableApplicationContext second = start(null, "outbox.poll-interval=50ms", "outbox.batch-size=10");
        await().atMost(DEADLINE).until(() -> processor.handled().size() >= 300);

        assertThat(processor.handled()).hasSize(300);
        assertThat(new HashSet<>(processor.handled().stream().map(OutboxRecord::getId).toList())).hasSize(300);
        processor.handledPayloadsByAggregate().forEach((aggregate, payloads) -> {
            int a = Integer.parseInt(aggregate.substring("aggregate-".length()));
            assertThat(payloads).as("order of %s across the restart", aggregate).isEqualTo(
                    IntStream.range(0, 300).filter(n -> n % 7 == a).mapToObj(n -> "{\"n\":" + n + "}").toList());
        });
        await().atMost(DEADLINE)
                .until(() -> repository(second).countByStatus(OutboxRecordStatus.COMPLETED) == 300);
    }

    @Test
    final void twoInstancesShareThePartitionsAndOneHandsThemAllOverWhenItStops() {
        String[] cluster = {"outbox.poll-interval=100ms", "outbox.instance.heartbeat-interval-seconds=1",
            "outbox.instance.stale-instance-timeout-seconds=4",
            "outbox.instance.new-instance-detection-interval-seconds=1"};
        ConfigurableApplicationContext first = start(null, with(cluster, "outbox.instance.id=first"));
        start(null, with(cluster, "outbox.instance.id=second"));
        await().atMost(DEADLINE).until(() -> owners().equals(Map.of("first", 128L, "second", 128L)));

        writeNumbered(first, 0, 200);
        await().atMost(DEADLINE).until(() -> processor.handled().size() >= 200);
        first.close();
        contexts.remove(first);
        assertThat(owners()).as("released on close, not left to go stale").doesNotContainKey("first");
        await().atMost(DEADLINE).until(() -> owners().equals(Map.of("second", 256L)));
        writeNumbered(contexts.get(0), 200, 400);
        await().atMost(DEADLINE).until(() -> processor.handled().size() >= 400);

        assertThat(new HashSet<>(processor.handled().stream().map(OutboxRecord::getId).toList())).hasSize(400);
        assertThat(processor.handled()).hasSize(400);
        processor.handledPayloadsByAggregate().forEach((aggregate, payloads) -> {
            int a = Integer.parseInt(aggregate.substring("aggregate-".length()));
            assertThat(payloads).as("order of %s across the hand-over", aggregate).isEqualTo(
                    IntStream.range(0, 400).filter(n -> n % 20 == a).mapToObj(n -> "{\"n\":" + n + "}").toList());
        });
    }

    private static String[] with(String[] properties, String more) {
        String[] all = java.util.Arrays.copyOf(properties, properties.length + 1);
        all[properties.length] = more;
        return all;
    }

    /** Owner of each partition, counted; partitions without an owner are left out. */
    private Map<String, Long> owners() {
        return jdbc().query("SELECT owner_instance_id, COUNT(*) FROM " + sql().partitionTable()
                + " WHERE owner_instance_id IS NOT NULL GROUP BY owner_instance_id",
                (rs, row) -> Map.entry(rs.getString(1), rs.getLong(2))).stream()
                .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
    }

    private static void writeNumbered(ConfigurableApplicationContext app, int from, int to) {
        Outbox outbox = app.getBean(Outbox.class);
        new TransactionTemplate(app.getBean(PlatformTransactionManager.class)).executeWithoutResult(status -> {
            for (int n = from; n < to; n++) {
                outbox.schedule(new Numbered(n), "aggregate-" + (n % 20));
            }
        });
    }

    /** An event type of the tests; serialized by the application's Jackson mapper as {@code {"n":…}}. */
    public record Numbered(int n) {
    }

    private int processManually(ConfigurableApplicationContext app) {
        return app.getBean(OutboxProcessor.class).processDueRecords();
    }

    private static OutboxRecordRepository repository(ConfigurableApplicationContext app) {
        return app.getBean(OutboxRecordRepository.class);
    }

    /** The outbox's statements on this class's tables (their names quoted and qualified where configured). */
    protected final SqlStatements sql() {
        if (sql == null) {
            sql = DatabaseDialect.detect(database().dataSource(), tables(database()));
        }
        return sql;
    }

    private JdbcTemplate jdbc() {
        return new JdbcTemplate(database().dataSource());
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await(DEADLINE.toSeconds(), TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The processor every application context of the current test registers. */
    protected final RecordingProcessor recordingProcessor() {
        return processor;
    }

    /** Starts an application on the test database, with a settable clock when given, and these properties. */
    protected final ConfigurableApplicationContext start(@Nullable Clock clock, String... properties) {
        List<String> all = new ArrayList<>(dataSourceProperties());
        all.addAll(List.of(
                "spring.datasource.hikari.maximum-pool-size=8",
                "spring.jpa.hibernate.ddl-auto=validate",
                "spring.jpa.open-in-view=false",
                "spring.sql.init.mode=always",
                "spring.sql.init.schema-locations=classpath:acceptance/schema.sql",
                "spring.main.banner-mode=off",
                "outbox.schema-initialization.enabled=true",
                "outbox.schema=" + sql().tables().schema().orElse(""),
                "outbox.table-prefix=" + sql().tables().tablePrefix()));
        all.addAll(List.of(properties));
        RecordingProcessor recorder = processor;
        ConfigurableApplicationContext context = new SpringApplicationBuilder(applicationClass())
                .web(WebApplicationType.NONE)
                .initializers(app -> {
                    app.getBeanFactory().registerSingleton("recordingProcessor", recorder);
                    if (clock != null) {
                        app.getBeanFactory().registerSingleton("testClock", clock);
                    }
                })
                .properties(all.toArray(String[]::new))
                .run();
        contexts.add(context);
        return context;
    }
}
