package dev.outbox.boot.named;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.Outbox;
import dev.outbox.boot.NamedOutbox;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxMetricsAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.boot.actuate.NamedOutboxesEndpoint;
import dev.outbox.boot.actuate.OutboxActuatorAutoConfiguration;
import dev.outbox.boot.actuate.OutboxReport;
import dev.outbox.boot.actuate.OutboxEndpoint.PartitionsReport;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.jdbc.testing.ReadmeSnippets;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.contributor.CompositeHealthContributor;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Several outboxes in one application on H2 (the same on PostgreSQL and MariaDB: {@code SeveralDatabasesTest}): each
 * writes in the transactions of its own database, processes its own partitions, has its own meters, endpoint section
 * and health, and hands its partitions over when the application stops; bad settings stop the start naming the
 * property.
 */
class NamedOutboxesTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);
    /** The properties of docs/several-databases.md, run as written. */
    private static final List<String> README_PROPERTIES =
            ReadmeSnippets.propertiesBlockSetting("outbox.outboxes.billing.data-source");

    private final String run = UUID.randomUUID().toString();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                    org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                    org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                    org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration.class,
                    OutboxStoreAutoConfiguration.class,
                    OutboxHandlersAutoConfiguration.class,
                    OutboxWriteAutoConfiguration.class,
                    OutboxProcessingAutoConfiguration.class,
                    OutboxMetricsAutoConfiguration.class,
                    NamedOutboxesAutoConfiguration.class,
                    OutboxActuatorAutoConfiguration.class))
            .withUserConfiguration(TwoMoreDatabases.class, Billing.class)
            .withPropertyValues(
                    "spring.datasource.url=" + url("main"),
                    "test.run=" + run,
                    "outbox.instance.id=node-a",
                    "outbox.instance.heartbeat-interval-seconds=1",
                    "outbox.instance.stale-instance-timeout-seconds=5",
                    "outbox.instance.new-instance-detection-interval-seconds=1",
                    "outbox.metrics.refresh-interval=100ms",
                    "outbox.metrics.count-completed-records=true",
                    "outbox.schema-initialization.enabled=true",
                    "outbox.poll-interval=100ms")
            .withPropertyValues(README_PROPERTIES.toArray(String[]::new));

    private String url(String database) {
        return "jdbc:h2:mem:" + database + "_" + run + ";DB_CLOSE_DELAY=-1";
    }

    @Test
    void eachOutboxWritesInTheTransactionsOfItsOwnDatabase() {
        runner.run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);

            assertThat(outboxes.names()).containsExactly("billing", "ledger");
            databases.billingTransactions.executeWithoutResult(status -> {
                databases.billing.update("INSERT INTO invoice (id) VALUES ('i-1')");
                outboxes.outbox("billing").schedule(new InvoiceIssued("i-1"), "billing-i-1");
            });
            databases.ledgerTransactions.executeWithoutResult(status ->
                    outboxes.outbox("ledger").schedule(new InvoiceIssued("i-1"), "ledger-i-1"));

            assertThat(aggregates(databases.billing, "outbox_record")).containsOnly("billing-i-1");
            assertThat(aggregates(databases.ledger, "ledger_outbox_record")).containsOnly("ledger-i-1");
            assertThat(aggregates(mainDatabase(context), "outbox_record")).isEmpty();
            assertThat(databases.ledger.queryForObject("SELECT COUNT(*) FROM information_schema.tables "
                    + "WHERE LOWER(table_name) = 'outbox_record'", Integer.class))
                    .as("the ledger outbox's tables are prefixed ledger_outbox_").isZero();
        });
    }

    @Test
    void theReadmesServiceWritesTheInvoiceAndItsRecordInOneTransactionOfTheBillingDatabase() {
        runner.run(context -> {
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);

            context.getBean(Billing.class).issue("i-9");

            assertThat(aggregates(databases.billing, "outbox_record")).containsOnly("i-9");
            assertThat(databases.billing.queryForList("SELECT id FROM invoice", String.class)).containsOnly("i-9");
            assertThat(aggregates(mainDatabase(context), "outbox_record")).isEmpty();
        });
        ReadmeSnippets.assertInDocs(Path.of("src/test/java/dev/outbox/boot/named/NamedOutboxesTest.java"),
                "several outboxes");
    }

    @Test
    void aRollbackInOneDatabaseLeavesTheOtherOutboxAlone() {
        runner.run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);

            databases.ledgerTransactions.executeWithoutResult(ledger -> {
                outboxes.outbox("ledger").schedule(new InvoiceIssued("i-2"), "ledger-i-2");
                databases.billingTransactions.executeWithoutResult(billing -> {
                    databases.billing.update("INSERT INTO invoice (id) VALUES ('i-2')");
                    outboxes.outbox("billing").schedule(new InvoiceIssued("i-2"), "billing-i-2");
                    billing.setRollbackOnly();
                });
            });

            assertThat(aggregates(databases.billing, "outbox_record")).isEmpty();
            assertThat(databases.billing.queryForObject("SELECT COUNT(*) FROM invoice", Integer.class)).isZero();
            assertThat(aggregates(databases.ledger, "ledger_outbox_record")).containsOnly("ledger-i-2");
        });
    }

    @Test
    void eachOutboxAddressesItsRecordsToItsHandlersAndProcessesItsOwnPartitions() {
        runner.run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);
            Calls calls = context.getBean(Calls.class);

            databases.billingTransactions.executeWithoutResult(status ->
                    outboxes.outbox("billing").schedule(new InvoiceIssued("i-3"), "billing-i-3"));
            databases.ledgerTransactions.executeWithoutResult(status ->
                    outboxes.outbox("ledger").schedule(new InvoiceIssued("i-3"), "ledger-i-3"));
            context.getBean(Outbox.class).schedule(new InvoiceIssued("i-3"), "main-i-3");

            await().atMost(PATIENCE).untilAsserted(() -> assertThat(calls.calls).containsExactlyInAnyOrder(
                    "mailer:billing-i-3", "accountant:billing-i-3", "accountant:ledger-i-3",
                    "mailer:main-i-3", "accountant:main-i-3"));
            assertThat(handlers(databases.ledger, "ledger_outbox_record")).as("ledger takes the accountant only")
                    .containsExactly("accountant");
            for (NamedOutbox outbox : outboxes.all()) {
                assertThat(outbox.coordinator()).as(outbox.name()).hasValueSatisfying(coordinator ->
                        assertThat(coordinator.ownedPartitions().size()).isEqualTo(256));
            }
            assertThat(owners(databases.billing, "outbox_partition")).containsOnly("node-a");
            assertThat(owners(databases.ledger, "ledger_outbox_partition")).containsOnly("node-a");
            assertThat(owners(mainDatabase(context), "outbox_partition")).containsOnly("node-a");
        });
    }

    @Test
    void withoutBackgroundProcessingEachOutboxProcessesWhenCalled() {
        runner.withPropertyValues("outbox.processing.enabled=false").run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);
            Calls calls = context.getBean(Calls.class);
            databases.billingTransactions.executeWithoutResult(status ->
                    outboxes.outbox("billing").schedule(new InvoiceIssued("i-5"), "billing-i-5"));

            NamedOutbox billing = outboxes.get("billing");
            assertThat(billing.coordinator()).isEmpty();
            assertThat(billing.processor()).hasValueSatisfying(processor ->
                    assertThat(processor.processDueRecords()).isEqualTo(2));
            assertThat(calls.calls).containsExactlyInAnyOrder("mailer:billing-i-5", "accountant:billing-i-5");
            assertThat(owners(databases.billing, "outbox_partition")).containsOnlyNulls();
        });
    }

    @Test
    void eachOutboxHandsItsPartitionsOverWhenTheApplicationStops() {
        TwoMoreDatabases[] databases = new TwoMoreDatabases[1];
        runner.run(context -> {
            databases[0] = context.getBean(TwoMoreDatabases.class);
            await().atMost(PATIENCE).until(() -> context.getBean(NamedOutboxes.class).all().stream()
                    .allMatch(outbox -> outbox.coordinator().orElseThrow().ownedPartitions().size() == 256));
        });

        assertThat(owners(databases[0].billing, "outbox_partition")).containsOnlyNulls();
        assertThat(owners(databases[0].ledger, "ledger_outbox_partition")).containsOnlyNulls();
        assertThat(databases[0].billing.queryForObject("SELECT COUNT(*) FROM outbox_instance", Integer.class))
                .isZero();
    }

    @Test
    void metersHealthAndTheEndpointShowEachOutboxUnderItsName() {
        runner.run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);
            databases.billingTransactions.executeWithoutResult(status ->
                    outboxes.outbox("billing").schedule(new InvoiceIssued("i-4"), "billing-i-4"));
            MeterRegistry registry = context.getBean(MeterRegistry.class);

            await().atMost(PATIENCE).untilAsserted(() -> assertThat(registry.get("outbox.records.processed")
                    .tag("outbox", "billing").tag("handler", "mailer").counter().count()).isEqualTo(1.0));
            assertThat(registry.find("outbox.records.processed").tag("outbox", "default").counters()).isEmpty();
            await().atMost(PATIENCE).untilAsserted(() -> assertThat(registry.get("outbox.records.count")
                    .tag("outbox", "billing").tag("status", "completed").gauge().value()).isEqualTo(2.0));
            assertThat(registry.get("outbox.records.count").tag("outbox", "ledger").tag("status", "completed")
                    .gauge().value()).isZero();
            assertThat(registry.get("outbox.partitions.gained").tag("outbox", "ledger").counter().count())
                    .isEqualTo(256.0);

            NamedOutboxesEndpoint endpoint = context.getBean(NamedOutboxesEndpoint.class);
            Map<String, OutboxReport> reports = endpoint.outboxes();
            assertThat(reports).containsOnlyKeys("billing", "ledger");
            await().atMost(PATIENCE).untilAsserted(() -> assertThat(endpoint.outbox("billing").backlog().records())
                    .containsEntry("completed", 2L));
            assertThat(endpoint.outbox("ledger").instance().ownedPartitions()).isEqualTo(256);
            assertThat(((PartitionsReport) endpoint.partitions("ledger", "partitions").getBody()).epochs())
                    .hasSize(256);
            assertThat(endpoint.partitions("nope", "partitions").getStatus())
                    .isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
            assertThat(endpoint.partitions("ledger", "nope").getStatus())
                    .isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);
            assertThat(endpoint.outbox("nope")).isNull();
            assertThat(endpoint.act("nope", "r-1", "retry").getStatus())
                    .isEqualTo(WebEndpointResponse.STATUS_NOT_FOUND);

            CompositeHealthContributor health = context.getBean("outboxesHealthContributor",
                    CompositeHealthContributor.class);
            await().atMost(PATIENCE).untilAsserted(() -> {
                assertThat(((HealthIndicator) health.getContributor("billing")).health().getStatus())
                        .isEqualTo(Status.UP);
                assertThat(((HealthIndicator) health.getContributor("ledger")).health().getStatus())
                        .isEqualTo(Status.UP);
            });
        });
    }

    @Test
    void anApplicationWithoutFurtherOutboxesHasNoEndpointOrHealthForThem() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                        OutboxStoreAutoConfiguration.class, OutboxHandlersAutoConfiguration.class,
                        OutboxWriteAutoConfiguration.class, NamedOutboxesAutoConfiguration.class,
                        OutboxActuatorAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=" + url("alone"), "outbox.schema-initialization.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed().doesNotHaveBean(NamedOutboxesEndpoint.class)
                            .doesNotHaveBean("outboxesHealthContributor");
                    assertThat(context.getBean(NamedOutboxes.class).names()).isEmpty();
                });
    }

    @Test
    void badSettingsStopTheStartNamingTheProperty() {
        assertStartFails("outbox.outboxes.billing.data-source is required",
                "outbox.outboxes.billing.data-source=");
        assertStartFails("outbox.outboxes.billing.data-source is 'billingDatasource', which is no DataSource bean",
                "outbox.outboxes.billing.data-source=billingDatasource");
        assertStartFails("outbox.outboxes.ledger.transaction-manager is 'nope', which is no PlatformTransactionManager",
                "outbox.outboxes.ledger.transaction-manager=nope");
        assertStartFails("outbox.outboxes.ledger.table-prefix must be lower-case ASCII letters",
                "outbox.outboxes.ledger.table-prefix=Ledger");
        assertStartFails("outbox.outboxes.ledger.schema must be lower-case ASCII letters",
                "outbox.outboxes.ledger.schema=x;drop");
        assertStartFails("outbox.outboxes.ledger.handlers: no handler or publisher has the id(s) [acountant]",
                "outbox.outboxes.ledger.handlers=acountant");
        assertStartFails("'default' names the outbox of outbox.*",
                "outbox.outboxes.default.data-source=billingDataSource");
        assertStartFails("an outbox name must be lower-case letters, digits and hyphens",
                "outbox.outboxes.Billing_2.data-source=billingDataSource");
        assertStartFails("outbox.outboxes.billing uses the tables of the default outbox (outbox.*)",
                "outbox.outboxes.billing.data-source=dataSource");
        assertStartFails("outbox.outboxes.ledger uses the tables of outbox.outboxes.billing",
                "outbox.outboxes.ledger.data-source=billingDataSource", "outbox.outboxes.ledger.table-prefix=outbox_");
    }

    @Test
    void twoDataSourcesOnOneDatabaseCannotGiveTwoOutboxesTheSameTables() {
        // review: the check compared DataSource objects, so a second DataSource on the same database went unnoticed
        ApplicationContextRunner withSecondDataSources = runner.withUserConfiguration(SecondDataSources.class);

        String billingOnDefault = "outbox.outboxes.billing uses the tables of the default outbox (outbox.*)";

        assertStartFails(withSecondDataSources, "outbox.outboxes.ledger uses the tables of outbox.outboxes.billing",
                "outbox.outboxes.ledger.data-source=billingAgainDataSource",
                "outbox.outboxes.ledger.table-prefix=outbox_");
        assertStartFails(withSecondDataSources, billingOnDefault,
                "outbox.outboxes.billing.data-source=mainAgainDataSource");
        // the schema the connection resolves to, named outright, is the same schema
        assertStartFails(withSecondDataSources, billingOnDefault,
                "outbox.outboxes.billing.data-source=mainAgainDataSource", "outbox.outboxes.billing.schema=public");
        assertStartFails(billingOnDefault,
                "outbox.outboxes.billing.data-source=dataSource", "outbox.outboxes.billing.schema=public");
    }

    @Test
    void twoDataSourcesOnOneDatabaseMayGiveTwoOutboxesOtherTables() {
        runner.withUserConfiguration(SecondDataSources.class)
                .withPropertyValues("outbox.outboxes.ledger.data-source=billingAgainDataSource")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    TwoMoreDatabases databases = context.getBean(TwoMoreDatabases.class);
                    // outside any transaction: a transaction of billingDataSource is another DataSource's to ledger
                    context.getBean(NamedOutboxes.class).outbox("ledger")
                            .schedule(new InvoiceIssued("i-6"), "ledger-i-6");

                    assertThat(aggregates(databases.billing, "ledger_outbox_record")).containsOnly("ledger-i-6");
                    assertThat(aggregates(databases.billing, "outbox_record")).isEmpty();
                });
    }

    private void assertStartFails(String message, String... properties) {
        assertStartFails(runner, message, properties);
    }

    private static void assertStartFails(ApplicationContextRunner runner, String message, String... properties) {
        runner.withPropertyValues(properties).run(context -> assertThat(context).hasFailed()
                .getFailure().hasStackTraceContaining(message));
    }

    private static JdbcTemplate mainDatabase(AssertableApplicationContext context) {
        return new JdbcTemplate(context.getBean(DataSource.class));
    }

    private static List<String> aggregates(JdbcTemplate database, String table) {
        return database.queryForList("SELECT aggregate_id FROM " + table, String.class);
    }

    private static List<String> handlers(JdbcTemplate database, String table) {
        return database.queryForList("SELECT handler_id FROM " + table, String.class);
    }

    private static List<String> owners(JdbcTemplate database, String table) {
        return database.queryForList("SELECT owner_instance_id FROM " + table, String.class);
    }

    record InvoiceIssued(String invoiceId) {
    }

    // README: several outboxes
    static class Billing {

        private final JdbcClient billing;
        private final NamedOutboxes outboxes;

        Billing(@Qualifier("billingDataSource") DataSource billing, NamedOutboxes outboxes) {
            this.billing = JdbcClient.create(billing);
            this.outboxes = outboxes;
        }

        @Transactional("billingTransactions")
        public void issue(String invoiceId) {
            billing.sql("INSERT INTO invoice (id) VALUES (?)").param(invoiceId).update();
            outboxes.outbox("billing").schedule(new InvoiceIssued(invoiceId), invoiceId);
        }
    }
    // README: end

    /**
     * Second DataSources on the main and the billing database, their URLs written otherwise than the first ones':
     * another connection pool on the same database, as an application may have one per purpose.
     */
    @Configuration(proxyBeanMethods = false)
    static class SecondDataSources {

        @Bean(defaultCandidate = false)
        static DataSource mainAgainDataSource(org.springframework.core.env.Environment environment) {
            // Spring Boot's user for an H2 spring.datasource
            return new DriverManagerDataSource("jdbc:h2:mem:main_" + environment.getProperty("test.run")
                    + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000", "sa", "");
        }

        @Bean(defaultCandidate = false)
        static DataSource billingAgainDataSource(org.springframework.core.env.Environment environment) {
            return new DriverManagerDataSource("jdbc:h2:mem:billing_" + environment.getProperty("test.run")
                    + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=20000");
        }
    }

    /** Handler calls, as {@code handler:aggregate}. */
    static final class Calls {
        final List<String> calls = new CopyOnWriteArrayList<>();
    }

    /**
     * Two databases besides the application's main one, each with its transaction manager; as Spring Boot documents
     * for further DataSources, they are no default candidates, so the main one stays auto-configured.
     */
    @Configuration(proxyBeanMethods = false)
    static class TwoMoreDatabases {

        final JdbcTemplate billing;
        final JdbcTemplate ledger;
        final TransactionTemplate billingTransactions;
        final TransactionTemplate ledgerTransactions;

        TwoMoreDatabases(@Qualifier("billingDataSource") DataSource billing,
                @Qualifier("ledgerDataSource") DataSource ledger,
                @Qualifier("billingTransactions") JdbcTransactionManager billingTransactions) {
            this.billing = new JdbcTemplate(billing);
            this.ledger = new JdbcTemplate(ledger);
            this.billingTransactions = new TransactionTemplate(billingTransactions);
            this.ledgerTransactions = new TransactionTemplate(new JdbcTransactionManager(ledger));
            this.billing.execute("CREATE TABLE IF NOT EXISTS invoice (id VARCHAR(36) PRIMARY KEY)");
        }

        @Bean(defaultCandidate = false)
        static DataSource billingDataSource(org.springframework.core.env.Environment environment) {
            return new DriverManagerDataSource("jdbc:h2:mem:billing_" + environment.getProperty("test.run")
                    + ";DB_CLOSE_DELAY=-1");
        }

        @Bean(defaultCandidate = false)
        static DataSource ledgerDataSource(org.springframework.core.env.Environment environment) {
            return new DriverManagerDataSource("jdbc:h2:mem:ledger_" + environment.getProperty("test.run")
                    + ";DB_CLOSE_DELAY=-1");
        }

        @Bean(defaultCandidate = false)
        static JdbcTransactionManager billingTransactions(@Qualifier("billingDataSource") DataSource billing) {
            return new JdbcTransactionManager(billing);
        }

        @Bean
        static Calls calls() {
            return new Calls();
        }

        @Bean
        static HandlerRegistration<InvoiceIssued> mailer(Calls calls) {
            return HandlerRegistration.of("mailer", InvoiceIssued.class,
                    (event, metadata) -> calls.calls.add("mailer:" + metadata.getAggregateId()));
        }

        @Bean
        static HandlerRegistration<InvoiceIssued> accountant(Calls calls) {
            return HandlerRegistration.of("accountant", InvoiceIssued.class,
                    (event, metadata) -> calls.calls.add("accountant:" + metadata.getAggregateId()));
        }

        @Bean
        static MeterRegistry meterRegistry() {
            return new SimpleMeterRegistry();
        }
    }
}
