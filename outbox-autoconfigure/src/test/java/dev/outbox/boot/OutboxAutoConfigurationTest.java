package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.cluster.ClusterTimings;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.metrics.MicrometerOutboxListener;
import dev.outbox.metrics.OutboxMetrics;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.RecordContext;
import dev.outbox.spi.RecordStore;
import dev.outbox.testing.MutableClock;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import javax.sql.DataSource;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The auto-configuration on an embedded H2 database, without starting processing threads where not needed. */
class OutboxAutoConfigurationTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                    org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration.class,
                    org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                    OutboxStoreAutoConfiguration.class,
                    OutboxHandlersAutoConfiguration.class,
                    OutboxWriteAutoConfiguration.class,
                    OutboxProcessingAutoConfiguration.class,
                    OutboxMetricsAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=jdbc:h2:mem:autoconfig_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "spring.jpa.hibernate.ddl-auto=none",
                    "outbox.schema-initialization.enabled=true");

    /**
     * outbox-starter-jdbc in an application that also has JPA: without outbox-jpa the records take the JDBC write
     * path, on the connection the JPA transaction manager binds to the DataSource, and commit or roll back with it.
     */
    @Test
    void aJpaApplicationWithoutOutboxJpaWritesOnTheConnectionOfItsJpaTransactions() {
        runner.withClassLoader(new FilteredClassLoader(JpaOutboxRecordRepository.class)).run(context -> {
            assertThat(context).hasNotFailed();
            PlatformTransactionManager transactions = context.getBean(PlatformTransactionManager.class);
            assertThat(transactions).isInstanceOf(JpaTransactionManager.class);
            Outbox outbox = context.getBean(Outbox.class);
            TransactionTemplate transaction = new TransactionTemplate(transactions);
            transaction.executeWithoutResult(status -> outbox.schedule(new Ping("x"), "committed"));
            transaction.executeWithoutResult(status -> {
                outbox.schedule(new Ping("x"), "rolled-back");
                status.setRollbackOnly();
            });
            assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForList(
                    "SELECT aggregate_id FROM outbox_record",
                    String.class)).containsExactly("committed");
        });
    }

    @Test
    void propertyDefaultsAreTheEngineDefaults() {
        runner.run(context -> {
            OutboxProperties properties = context.getBean(OutboxProperties.class);
            ProcessingOptions options = properties.toProcessingOptions();
            ProcessingOptions defaults = ProcessingOptions.defaults();
            assertThat(options.pollInterval()).isEqualTo(ProcessingOptions.DEFAULT_POLL_INTERVAL)
                    .isEqualTo(defaults.pollInterval());
            assertThat(options.batchSize()).isEqualTo(ProcessingOptions.DEFAULT_BATCH_SIZE);
            assertThat(options.stopOnFirstFailure()).isEqualTo(ProcessingOptions.DEFAULT_STOP_ON_FIRST_FAILURE);
            assertThat(options.concurrency()).isEqualTo(ProcessingOptions.DEFAULT_CONCURRENCY);
            assertThat(properties.retry().maxRetries()).isEqualTo(OutboxRetryPolicy.DEFAULT_MAX_RETRIES);
            assertThat(options.shutdownTimeout()).isEqualTo(ProcessingOptions.DEFAULT_SHUTDOWN_TIMEOUT);
            assertThat(properties.instance().handOverTimeout())
                    .isEqualTo(ClusterCoordinator.DEFAULT_HAND_OVER_TIMEOUT);
            assertThat(options.deleteCompletedRecords())
                    .isEqualTo(ProcessingOptions.DEFAULT_DELETE_COMPLETED_RECORDS);
            assertThat(options.handlerTimeout()).isEqualTo(defaults.handlerTimeout()).isEmpty();
            assertThat(options.maxDeferral()).isEqualTo(ProcessingOptions.DEFAULT_MAX_DEFERRAL)
                    .isEqualTo(Duration.ofHours(24));
            assertThat(options.deferralInterval()).isEqualTo(ProcessingOptions.DEFAULT_DEFERRAL_INTERVAL);
            assertThat(options.transactionGroupSize()).isEqualTo(ProcessingOptions.DEFAULT_TRANSACTION_GROUP_SIZE);
            assertThat(Duration.ofSeconds(properties.instance().heartbeatIntervalSeconds()))
                    .isEqualTo(ClusterTimings.DEFAULT_HEARTBEAT_INTERVAL);
            assertThat(Duration.ofSeconds(properties.instance().staleInstanceTimeoutSeconds()))
                    .isEqualTo(ClusterTimings.DEFAULT_STALE_TIMEOUT);
            assertThat(Duration.ofSeconds(properties.instance().newInstanceDetectionIntervalSeconds()))
                    .isEqualTo(ClusterTimings.DEFAULT_REBALANCE_INTERVAL);
            assertThat(properties.maxPayloadBytes()).isEqualTo(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
            assertThat(properties.purge().retention()).isEqualTo(OutboxPurger.Builder.DEFAULT_RETENTION);
            assertThat(properties.purge().interval()).isEqualTo(OutboxPurger.Builder.DEFAULT_INTERVAL);
            assertThat(properties.purge().batchSize()).isEqualTo(OutboxPurger.Builder.DEFAULT_BATCH_SIZE);
            assertThat(properties.metrics().refreshInterval()).isEqualTo(OutboxMonitor.DEFAULT_REFRESH_INTERVAL);
            assertThat(properties.metrics().maxEventTypes())
                    .isEqualTo(MicrometerOutboxListener.DEFAULT_MAX_EVENT_TYPES);
            assertThat(properties.schemaInitialization().enabled()).isTrue();
            assertThat(properties.processing().enabled()).isTrue();
            OutboxRetryPolicy policy = context.getBean(OutboxRetryPolicy.class);
            OutboxRetryPolicy library = OutboxRetryPolicy.defaults();
            assertThat(policy.nextDelay(1)).isEqualTo(library.nextDelay(1))
                    .isEqualTo(OutboxRetryPolicy.DEFAULT_INITIAL_DELAY).isEqualTo(Duration.ofSeconds(2));
            assertThat(policy.nextDelay(2)).isEqualTo(library.nextDelay(2)).isEqualTo(Duration.ofSeconds(4));
            assertThat(policy.nextDelay(10)).isEqualTo(library.nextDelay(10))
                    .isEqualTo(OutboxRetryPolicy.DEFAULT_MAX_DELAY);
        });
    }

    @Test
    void theInstanceVersionIsThePropertyElseTheBuildsElseUnknown() {
        runner.run(context -> assertThat(context.getBean(OutboxInstanceIdentity.class).version()).isNull());
        Properties build = new Properties();
        build.setProperty("version", "4.2.0");
        runner.withBean(BuildProperties.class, () -> new BuildProperties(build))
                .run(context -> assertThat(context.getBean(OutboxInstanceIdentity.class).version())
                        .isEqualTo("4.2.0"));
        runner.withBean(BuildProperties.class, () -> new BuildProperties(build))
                .withPropertyValues("outbox.instance.version=4.2.1-hotfix")
                .run(context -> assertThat(context.getBean(OutboxInstanceIdentity.class).version())
                        .isEqualTo("4.2.1-hotfix"));
        runner.withPropertyValues("outbox.instance.version=" + "v".repeat(256)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCauseMessages(context.getStartupFailure()))
                    .contains("outbox.instance.version is 256 characters long; the limit is 255");
        });
    }

    @Test
    void withoutARecordProcessorOnlyTheWritePathIsCreated() {
        runner.run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).hasSingleBean(Outbox.class).hasSingleBean(OutboxRecordRepository.class)
                    .hasSingleBean(RecordStore.class).doesNotHaveBean(OutboxProcessor.class)
                    .doesNotHaveBean(OutboxNodeLifecycle.class);
            assertThat(new JdbcTemplate(context.getBean(javax.sql.DataSource.class))
                    .queryForObject("SELECT COUNT(*) FROM outbox_partition", Integer.class)).isEqualTo(256);
        });
    }

    @Test
    void aRecordProcessorBeanGetsAProcessorAndItsLifecycle() {
        runner.withUserConfiguration(ProcessorConfiguration.class).run(context -> {
            assertThat(context).hasSingleBean(OutboxProcessor.class).hasSingleBean(OutboxNodeLifecycle.class);
            assertThat(context.getBean(OutboxProcessor.class).isRunning()).isTrue();
        });
    }

    @Test
    void withVirtualThreadsEnabledHandlersRunOnVirtualThreadsWhereTheJvmHasThem() {
        runner.withUserConfiguration(ThreadRecordingConfiguration.class)
                .withPropertyValues("spring.threads.virtual.enabled=true", "outbox.processing.enabled=false")
                .run(context -> {
                    context.getBean(Outbox.class).schedule(new Ping("x"), "agg-1");
                    assertThat(context.getBean(OutboxProcessor.class).processDueRecords()).isEqualTo(1);
                    Thread worker = context.getBean(ThreadRecordingConfiguration.class).thread;
                    assertThat(worker).isNotNull();
                    assertThat(worker.getName()).startsWith("outbox-worker-");
                    assertThat(isVirtual(worker)).as("virtual on Java %s", Runtime.version().feature())
                            .isEqualTo(Runtime.version().feature() >= 21);
                });
    }

    @Test
    void withoutVirtualThreadsHandlersRunOnPlatformThreads() {
        runner.withUserConfiguration(ThreadRecordingConfiguration.class)
                .withPropertyValues("outbox.processing.enabled=false")
                .run(context -> {
                    context.getBean(Outbox.class).schedule(new Ping("x"), "agg-1");
                    assertThat(context.getBean(OutboxProcessor.class).processDueRecords()).isEqualTo(1);
                    Thread worker = context.getBean(ThreadRecordingConfiguration.class).thread;
                    assertThat(worker).isNotNull();
                    assertThat(isVirtual(worker)).isFalse();
                });
    }

    /** Thread.isVirtual() exists from Java 21; this code compiles for 17. */
    private static boolean isVirtual(Thread thread) throws ReflectiveOperationException {
        if (Runtime.version().feature() < 21) {
            return false;
        }
        return (boolean) Thread.class.getMethod("isVirtual").invoke(thread);
    }

    static class ThreadRecordingConfiguration {
        volatile Thread thread;

        @Bean
        OutboxRecordProcessor threadRecordingProcessor() {
            return record -> thread = Thread.currentThread();
        }
    }

    @Test
    void aMetricsScrapeCostsOneGroupedQueryPerFamilyPerRefreshInterval() {
        StatementRecorder recorder = new StatementRecorder();
        MutableClock clock = MutableClock.startingNow();
        runner.withUserConfiguration(ProcessorConfiguration.class)
                .withBean(StatementRecorder.class, () -> recorder)
                .withBean(Clock.class, () -> clock)
                .run(context -> {
                    SimpleMeterRegistry registry = new SimpleMeterRegistry();
                    context.getBean(OutboxMetrics.class).bindTo(registry);
                    assertThat(registry.getMeters()).as("meters of one scrape").hasSizeGreaterThan(256);
                    recorder.watchThreadsNamed("outbox-monitor"); // the snapshot is read in the background

                    OutboxMonitor monitor = context.getBean(OutboxMonitor.class);
                    scrape(registry);
                    scrape(registry);
                    await().atMost(Duration.ofSeconds(60)).until(() -> !monitor.lastReading().awaitingAnswer());

                    assertThat(recorder.statements()).as("records by status, NEW by partition, live instances, "
                            + "partition table").hasSize(4)
                            .anySatisfy(sql -> assertThat(sql).contains("GROUP BY status"))
                            .anySatisfy(sql -> assertThat(sql).contains("GROUP BY partition_no"))
                            .anySatisfy(sql -> assertThat(sql).contains("FROM outbox_instance"))
                            .anySatisfy(sql -> assertThat(sql).contains("FROM outbox_partition"));

                    clock.advance(context.getBean(OutboxProperties.class).metrics().refreshInterval());
                    scrape(registry);
                    await().atMost(Duration.ofSeconds(60)).until(() -> !monitor.lastReading().awaitingAnswer());
                    assertThat(recorder.statements()).hasSize(8);
                });
    }

    @Test
    void aTransactionsRecordsAreOneBatchedInsertAtCommitWithNoReadBack() {
        StatementRecorder recorder = new StatementRecorder();
        runner.withPropertyValues("outbox.processing.enabled=false")
                .withBean(StatementRecorder.class, () -> recorder)
                .run(context -> {
                    Outbox outbox = context.getBean(Outbox.class);
                    TransactionTemplate transaction = new TransactionTemplate(
                            context.getBean(PlatformTransactionManager.class));
                    recorder.watchCurrentThread();

                    transaction.executeWithoutResult(status -> {
                        for (int n = 0; n < 100; n++) {
                            outbox.schedule(Map.of("n", n), "aggregate-" + n % 7);
                        }
                    });

                    assertThat(recorder.statements()).as("one prepared insert, executed as one batch")
                            .singleElement().satisfies(sql -> assertThat(sql).startsWith("INSERT INTO outbox_record"));
                    assertThat(context.getBean(OutboxRecordRepository.class).findByAggregateId("aggregate-3"))
                            .hasSize(14);
                });
    }

    @Test
    void aRecordContextBeanAddsItsHeadersToEveryRecordWritten() {
        RecordContext tenant = new RecordContext() {
            @Override
            public Map<String, String> capture() {
                return Map.of("tenant", "acme");
            }

            @Override
            public Scope restore(Map<String, String> headers) {
                return Scope.NONE;
            }
        };
        runner.withPropertyValues("outbox.processing.enabled=false")
                .withBean("tenantContext", RecordContext.class, () -> tenant)
                .run(context -> {
                    TransactionTemplate transaction = new TransactionTemplate(
                            context.getBean(PlatformTransactionManager.class));
                    transaction.executeWithoutResult(status -> context.getBean(Outbox.class)
                            .schedule(Map.of("n", 1), "order-1"));

                    assertThat(context.getBean(OutboxRecordRepository.class).findByAggregateId("order-1"))
                            .singleElement().satisfies(record -> assertThat(record.getHeaders())
                                    .containsExactly(Map.entry("tenant", "acme")));
                });
    }

    private static void scrape(SimpleMeterRegistry registry) {
        registry.getMeters().forEach(meter -> meter.measure().forEach(measurement -> measurement.getValue()));
    }

    /**
     * Tracing end to end: the context of the observation current at write time is stored in the row, and the handler
     * runs inside an {@code outbox.record.process} observation that receives it. The registry's handler stands in for
     * a tracing bridge: it injects a header on send and notes what it receives.
     */
    @Test
    void theWritersTraceContextIsStoredWithTheRecordAndReceivedAroundItsHandler() {
        runner.withUserConfiguration(TracingConfiguration.class)
                .withPropertyValues("outbox.processing.enabled=false")
                .run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            FakeTracer tracer = context.getBean(FakeTracer.class);
            OutboxRecord written = Observation.createNotStarted("http.server.requests", registry)
                    .observe(() -> context.getBean(Outbox.class).schedule(new Ping("x"), "order-1"));

            OutboxRecord stored = context.getBean(OutboxRecordRepository.class).findById(written.getId())
                    .orElseThrow();
            assertThat(stored.getTraceContext()).isEqualTo("traceparent=span-of-outbox.record.write");

            assertThat(context.getBean(OutboxProcessor.class).processDueRecords()).isEqualTo(1);

            assertThat(tracer.received).containsExactly(Map.of("traceparent", "span-of-outbox.record.write"));
            assertThat(context.getBean(TracingConfiguration.class).observedInHandler)
                    .containsExactly("outbox.record.process");
        });
    }

    @Test
    void backgroundProcessingPurgesFinishedRecordsUnlessTurnedOff() {
        runner.withUserConfiguration(ProcessorConfiguration.class).run(context ->
                assertThat(context).hasSingleBean(OutboxPurger.class));
        runner.withUserConfiguration(ProcessorConfiguration.class).withPropertyValues("outbox.purge.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(OutboxPurger.class));
        runner.withUserConfiguration(ProcessorConfiguration.class).withPropertyValues("outbox.processing.enabled=false")
                .run(context -> assertThat(context).as("only instances that own partitions purge")
                        .doesNotHaveBean(OutboxPurger.class));
    }

    @Test
    void processingCanBeLeftToExplicitCalls() {
        runner.withUserConfiguration(ProcessorConfiguration.class)
                .withPropertyValues("outbox.processing.enabled=false")
                .run(context -> {
                    assertThat(context).hasSingleBean(OutboxProcessor.class)
                            .doesNotHaveBean(OutboxNodeLifecycle.class);
                    assertThat(context.getBean(OutboxProcessor.class).isRunning()).isFalse();
                });
    }

    @Test
    void applicationBeansReplaceTheDefaults() {
        runner.withUserConfiguration(ProcessorConfiguration.class, CustomConfiguration.class)
                .withPropertyValues("outbox.processing.enabled=false")
                .run(context -> {
                    assertThat(context.getBean(OutboxRetryPolicy.class)).isSameAs(CustomConfiguration.POLICY);
                    assertThat(context.getBean(Clock.class)).isSameAs(CustomConfiguration.CLOCK);
                    OutboxRecord record = context.getBean(Outbox.class).schedule(new Ping("x"), "agg-1");
                    assertThat(record.getCreatedAt()).isEqualTo(CustomConfiguration.CLOCK.instant());
                    assertThat(record.getEventType()).isEqualTo("Ping");
                    assertThat(record.getPayload()).isEqualTo("{\"value\":\"x\"}");
                });
    }

    @Test
    void withoutADataSourceTheOutboxStaysOffAndTheApplicationStarts() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(OutboxStoreAutoConfiguration.class,
                        OutboxHandlersAutoConfiguration.class, OutboxWriteAutoConfiguration.class,
                        OutboxProcessingAutoConfiguration.class, OutboxMetricsAutoConfiguration.class))
                .withUserConfiguration(ProcessorConfiguration.class)
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class)
                        .doesNotHaveBean(OutboxProcessor.class).doesNotHaveBean(OutboxProperties.class));
    }

    @Test
    void outboxEnabledFalseTurnsEverythingOff() {
        runner.withUserConfiguration(ProcessorConfiguration.class).withPropertyValues("outbox.enabled=false")
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(Outbox.class)
                        .doesNotHaveBean(OutboxProcessor.class).doesNotHaveBean(OutboxProperties.class));
    }

    @Test
    void retryPolicyComesFromTheProperties() {
        runner.withPropertyValues("outbox.retry.policy=fixed", "outbox.retry.fixed.delay=7000").run(context ->
                assertThat(context.getBean(OutboxRetryPolicy.class).nextDelay(3)).isEqualTo(Duration.ofSeconds(7)));
        runner.withPropertyValues("outbox.retry.policy=jittered", "outbox.retry.jittered.base-policy=fixed",
                "outbox.retry.fixed.delay=1s", "outbox.retry.jittered.jitter=200ms").run(context -> {
                    OutboxRetryPolicy policy = context.getBean(OutboxRetryPolicy.class);
                    for (int i = 0; i < 50; i++) {
                        assertThat(policy.nextDelay(1)).isBetween(Duration.ofSeconds(1), Duration.ofMillis(1200));
                    }
                });
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "outbox.batch-size=0 | outbox.batch-size must be between 1 and 10000 but was 0",
            "outbox.poll-interval=-5 | outbox.poll-interval must be positive",
            "outbox.processing.concurrency=0 | outbox.processing.concurrency must be between 1 and 1000 but was 0",
            "outbox.processing.handler-timeout=0s | outbox.processing.handler-timeout must be positive but was PT0S",
            "outbox.processing.handler-timeout=-2s | outbox.processing.handler-timeout must be positive but was PT-2S",
            "outbox.retry.max-retries=-1 | outbox.retry.max-retries must be between 0 and",
            "outbox.retry.exponential.multiplier=0.5 | outbox.retry.exponential: multiplier must be",
            "outbox.retry.fixed.delay=-1s | outbox.retry.fixed: delay must not be negative",
            "outbox.max-payload-size=0 | outbox.max-payload-size must be between 1B",
            "outbox.instance.graceful-shutdown-timeout-seconds=0 | outbox.instance.graceful-shutdown-timeout-seconds"
                    + " must be positive",
            "outbox.instance.heartbeat-interval-seconds=0 | outbox.instance.heartbeat-interval-seconds must be at"
                    + " least 1 but was 0",
            "outbox.instance.hand-over-timeout-seconds=0 | outbox.instance.hand-over-timeout-seconds must be at"
                    + " least 1 but was 0",
            "outbox.instance.stale-instance-timeout-seconds=2 | outbox.instance.stale-instance-timeout-seconds (2)"
                    + " must be greater than outbox.instance.heartbeat-interval-seconds (2)",
            "outbox.metrics.refresh-interval=0 | outbox.metrics.refresh-interval must be positive but was PT0S",
            "outbox.metrics.max-event-types=0 | outbox.metrics.max-event-types must be at least 1 but was 0",
            "outbox.purge.batch-size=0 | outbox.purge.batch-size must be between 1 and 100000 but was 0",
            "outbox.purge.interval=0s | outbox.purge.interval must be positive but was PT0S",
            "outbox.purge.retention=-1d | outbox.purge.retention must not be negative but was PT-24H",
            "outbox.processing.max-deferral=-1s | outbox.processing.max-deferral must not be negative but was PT-1S",
            "outbox.processing.deferral-interval=0s | outbox.processing.deferral-interval must be positive but was"
                    + " PT0S",
            "outbox.processing.transaction-group-size=0 | outbox.processing.transaction-group-size must be between 1"
                    + " and 1000 but was 0"})
    void badValuesStopTheStartWithTheirPropertyNamed(String property, String message) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCauseMessages(context.getStartupFailure())).contains(message);
        });
    }

    /** Table names are spliced into SQL: anything but a plain identifier stops the start before any statement. */
    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "outbox.table-prefix=x; DROP TABLE outbox_record; -- | outbox.table-prefix must be lower-case ASCII"
                    + " letters, digits and underscores, starting with a letter ([a-z][a-z0-9_]*), but was 'x; DROP"
                    + " TABLE outbox_record; --'",
            "outbox.schema=public\".outbox_record; -- | outbox.schema must be lower-case ASCII letters",
            "outbox.table-prefix=Outbox_ | outbox.table-prefix must be lower-case ASCII letters",
            "outbox.table-prefix=1_ | outbox.table-prefix must be lower-case ASCII letters",
            "outbox.schema=billing`x | outbox.schema must be lower-case ASCII letters",
            "outbox.table-prefix=a_very_long_table_prefix_ | outbox.table-prefix must be at most 24 characters but was"
                    + " 25",
            "outbox.schema=s234567890123456789012345678901234 | outbox.schema must be at most 32 characters but was"
                    + " 34"})
    void tableNamesThatAreNotPlainIdentifiersStopTheStart(String property, String message) {
        runner.withPropertyValues(property).run(context -> {
            assertThat(context).hasFailed();
            assertThat(rootCauseMessages(context.getStartupFailure())).contains(message);
        });
    }

    @Test
    void theStatementsNameTheConfiguredTablesQuotedInTheCaseTheDatabaseKeeps() {
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:autoconfig_" + UUID.randomUUID()
                        + ";DB_CLOSE_DELAY=-1;INIT=CREATE SCHEMA IF NOT EXISTS BILLING", "outbox.schema=billing",
                        "outbox.table-prefix=", "outbox.processing.enabled=false")
                .run(context -> {
                    SqlStatements sql = context.getBean(SqlStatements.class);
                    assertThat(sql.recordTable()).isEqualTo("\"BILLING\".\"RECORD\"");
                    assertThat(sql.partitionTable()).isEqualTo("\"BILLING\".\"PARTITION\"");
                    assertThat(sql.get("record.insert")).startsWith("INSERT INTO \"BILLING\".\"RECORD\" (");
                    assertThat(context.getBean(JdbcOutboxStores.class).tables().notificationChannel())
                            .isEqualTo("billing.record");
                    OutboxRecord saved = context.getBean(Outbox.class).schedule(new Ping("o-1"), "o-1");
                    assertThat(context.getBean(OutboxRecordRepository.class).findById(saved.getId())).isPresent();
                    assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                            "SELECT COUNT(*) FROM BILLING.\"PARTITION\"", Integer.class)).isEqualTo(256);
                });
    }

    @Test
    void theReadmesTableNamesWorkAsWritten() {
        List<String> readme = ReadmeSnippets.propertiesBlockSetting("outbox.table-prefix");
        runner.withPropertyValues("spring.datasource.url=jdbc:h2:mem:autoconfig_" + UUID.randomUUID()
                        + ";DB_CLOSE_DELAY=-1;INIT=CREATE SCHEMA IF NOT EXISTS BILLING")
                .withPropertyValues(readme.toArray(String[]::new))
                .run(context -> {
                    assertThat(context.getBean(SqlStatements.class).recordTable())
                            .isEqualTo("\"BILLING\".\"BILLING_OUTBOX_RECORD\"");
                    assertThat(new JdbcTemplate(context.getBean(DataSource.class)).queryForObject(
                            "SELECT COUNT(*) FROM billing.billing_outbox_partition", Integer.class)).isEqualTo(256);
                });
    }

    @Test
    void configurationMetadataDocumentsTheProperties() throws Exception {
        try (InputStream in = getClass().getClassLoader()
                .getResourceAsStream("META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("metadata generated by the configuration processor").isNotNull();
            String json = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            assertThat(json).contains("\"outbox.poll-interval\"", "\"outbox.batch-size\"",
                    "\"outbox.processing.stop-on-first-failure\"", "\"outbox.retry.max-retries\"",
                    "\"outbox.retry.exponential.initial-delay\"", "\"outbox.schema-initialization.enabled\"",
                    "\"outbox.instance.graceful-shutdown-timeout-seconds\"", "\"outbox.schema\"",
                    "\"outbox.table-prefix\"", "\"outbox.outboxes\"",
                    "\"outbox.processing.max-deferral\"", "\"outbox.instance.version\"",
                    "\"outbox.processing.transaction-group-size\"",
                    "\"outbox.instance.hand-over-timeout-seconds\"",
                    "means at most four attempts");
        }
    }

    private static String rootCauseMessages(Throwable failure) {
        StringBuilder messages = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            messages.append(t.getMessage()).append('\n');
        }
        return messages.toString();
    }

    record Ping(String value) {
    }

    @Configuration(proxyBeanMethods = false)
    static class ProcessorConfiguration {
        @Bean
        OutboxRecordProcessor testProcessor() {
            return record -> { };
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class CustomConfiguration {
        static final OutboxRetryPolicy POLICY = retryCount -> Duration.ofMinutes(retryCount);
        static final Clock CLOCK = Clock.fixed(Instant.parse("2026-01-01T00:00:00Z"), ZoneOffset.UTC);

        @Bean
        OutboxRetryPolicy customPolicy() {
            return POLICY;
        }

        @Bean
        Clock customClock() {
            return CLOCK;
        }
    }

    /** Stands in for a propagating tracer: injects a header naming the sending observation, notes received ones. */
    static final class FakeTracer implements ObservationHandler<Observation.Context> {
        final List<Map<String, String>> received = new CopyOnWriteArrayList<>();

        @Override
        @SuppressWarnings("unchecked")
        public void onStart(Observation.Context context) {
            if (context instanceof SenderContext<?> sender) {
                ((SenderContext<Object>) sender).getSetter().set(sender.getCarrier(), "traceparent",
                        "span-of-" + context.getName());
            }
            if (context instanceof ReceiverContext<?> receiver) {
                ReceiverContext<Object> typed = (ReceiverContext<Object>) receiver;
                received.add(Map.of("traceparent", String.valueOf(typed.getGetter().get(typed.getCarrier(),
                        "traceparent"))));
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    static class TracingConfiguration {
        final List<String> observedInHandler = new CopyOnWriteArrayList<>();

        @Bean
        FakeTracer fakeTracer() {
            return new FakeTracer();
        }

        @Bean
        ObservationRegistry observationRegistry(FakeTracer tracer) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(tracer);
            return registry;
        }

        @Bean
        OutboxRecordProcessor recordingProcessor(ObservationRegistry registry) {
            return record -> {
                Observation current = registry.getCurrentObservation();
                observedInHandler.add(current == null ? "none" : current.getContext().getName());
            };
        }
    }
}
