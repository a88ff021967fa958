package dev.outbox.boot.named;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.Outbox;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxMetricsAutoConfiguration;
import dev.outbox.boot.OutboxProcessingAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.jdbc.testing.TestDatabase;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.support.JdbcTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * One application, three databases: its main PostgreSQL database (the default outbox), a second PostgreSQL database
 * ({@code orders}) and a MariaDB database ({@code ledger}). Records commit and roll back with the transaction of their
 * own database, each outbox is processed, and two instances of the application balance each outbox's partitions on
 * their own, the survivor taking all of them when the other stops. Killing an instance is the cluster tests'
 * {@code SeveralDatabasesClusterTest}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SeveralDatabasesTest {

    private static final Duration PATIENCE = Duration.ofSeconds(90);

    private TestDatabase main;
    private TestDatabase orders;
    private TestDatabase ledger;

    @BeforeAll
    void createDatabases() {
        main = TestDatabase.create(TestDatabase.Kind.POSTGRES);
        orders = TestDatabase.create(TestDatabase.Kind.POSTGRES);
        ledger = TestDatabase.create(TestDatabase.Kind.MARIADB);
    }

    @AfterAll
    void dropDatabases() {
        for (TestDatabase database : new TestDatabase[] {main, orders, ledger}) {
            if (database != null) {
                database.close();
            }
        }
    }

    private ApplicationContextRunner application(String instanceId) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                        org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                        OutboxStoreAutoConfiguration.class,
                        OutboxHandlersAutoConfiguration.class,
                        OutboxWriteAutoConfiguration.class,
                        OutboxProcessingAutoConfiguration.class,
                        OutboxMetricsAutoConfiguration.class,
                        NamedOutboxesAutoConfiguration.class))
                .withUserConfiguration(Databases.class)
                .withPropertyValues(
                        "spring.datasource.url=" + main.jdbcUrl(),
                        "spring.datasource.username=" + main.username(),
                        "spring.datasource.password=" + main.password(),
                        "test.orders.url=" + orders.jdbcUrl(),
                        "test.orders.username=" + orders.username(),
                        "test.orders.password=" + orders.password(),
                        "test.ledger.url=" + ledger.jdbcUrl(),
                        "test.ledger.username=" + ledger.username(),
                        "test.ledger.password=" + ledger.password(),
                        "outbox.instance.id=" + instanceId,
                        "outbox.instance.heartbeat-interval-seconds=1",
                        "outbox.instance.stale-instance-timeout-seconds=5",
                        "outbox.instance.new-instance-detection-interval-seconds=1",
                        "outbox.instance.graceful-shutdown-timeout-seconds=5",
                        "outbox.poll-interval=200ms",
                        "outbox.schema-initialization.enabled=true",
                        "outbox.outboxes.orders.data-source=ordersDataSource",
                        "outbox.outboxes.orders.schema-initialization.enabled=true",
                        "outbox.outboxes.ledger.data-source=ledgerDataSource",
                        "outbox.outboxes.ledger.schema-initialization.enabled=true");
    }

    @Test
    void recordsCommitAndRollBackWithTheTransactionOfTheirOwnDatabaseAndAreProcessed() {
        application("node-a").run(context -> {
            NamedOutboxes outboxes = context.getBean(NamedOutboxes.class);
            Databases databases = context.getBean(Databases.class);
            Calls calls = context.getBean(Calls.class);

            databases.ordersTransactions.executeWithoutResult(status -> {
                databases.orders.update("INSERT INTO purchase (id) VALUES ('p-1')");
                outboxes.outbox("orders").schedule(new Placed("p-1"), "orders-p-1");
            });
            databases.ledgerTransactions.executeWithoutResult(ledgerStatus -> {
                outboxes.outbox("ledger").schedule(new Placed("p-1"), "ledger-p-1");
                databases.ordersTransactions.executeWithoutResult(ordersStatus -> {
                    databases.orders.update("INSERT INTO purchase (id) VALUES ('p-2')");
                    outboxes.outbox("orders").schedule(new Placed("p-2"), "orders-p-2");
                    ordersStatus.setRollbackOnly();
                });
            });
            context.getBean(Outbox.class).schedule(new Placed("p-1"), "main-p-1");

            assertThat(aggregates(orders)).containsOnly("orders-p-1");
            assertThat(new JdbcTemplate(orders.dataSource()).queryForList("SELECT id FROM purchase", String.class))
                    .containsOnly("p-1");
            assertThat(aggregates(ledger)).containsOnly("ledger-p-1");
            assertThat(aggregates(main)).containsOnly("main-p-1");
            await().atMost(PATIENCE).untilAsserted(() -> assertThat(calls.calls)
                    .containsExactlyInAnyOrder("orders-p-1", "ledger-p-1", "main-p-1"));
            for (TestDatabase database : List.of(main, orders, ledger)) {
                assertThat(new JdbcTemplate(database.dataSource()).queryForList(
                        "SELECT status FROM outbox_record", String.class)).as(database.kind() + " " + database)
                        .containsOnly("COMPLETED");
            }
        });
    }

    @Test
    void twoInstancesBalanceEachOutboxAndTheSurvivorTakesEveryPartitionOfEach() {
        application("node-a").run(first -> {
            await().atMost(PATIENCE).until(() -> ownersEverywhere().values().stream()
                    .allMatch(owners -> owners.equals(Map.of("node-a", 256))));

            application("node-b").run(second -> await().atMost(PATIENCE).untilAsserted(() ->
                    assertThat(ownersEverywhere()).allSatisfy((database, owners) -> assertThat(owners)
                            .as(database).isEqualTo(Map.of("node-a", 128, "node-b", 128)))));

            await().atMost(PATIENCE).untilAsserted(() -> assertThat(ownersEverywhere()).allSatisfy(
                    (database, owners) -> assertThat(owners).as(database).isEqualTo(Map.of("node-a", 256))));
        });
    }

    /** Partitions per owner, per database. */
    private Map<String, Map<String, Integer>> ownersEverywhere() {
        Map<String, Map<String, Integer>> byDatabase = new TreeMap<>();
        for (TestDatabase database : List.of(main, orders, ledger)) {
            Map<String, Integer> owners = new TreeMap<>();
            new JdbcTemplate(database.dataSource()).queryForList("SELECT owner_instance_id FROM outbox_partition",
                    String.class).forEach(owner -> owners.merge(String.valueOf(owner), 1, Integer::sum));
            byDatabase.put(database.kind() + " " + database.databaseName(), owners);
        }
        return byDatabase;
    }

    private static List<String> aggregates(TestDatabase database) {
        return new JdbcTemplate(database.dataSource()).queryForList("SELECT aggregate_id FROM outbox_record",
                String.class);
    }

    record Placed(String id) {
    }

    static final class Calls {
        final List<String> calls = new CopyOnWriteArrayList<>();
    }

    /** The two further databases, each a pool with its transaction manager, none a default candidate. */
    @Configuration(proxyBeanMethods = false)
    static class Databases {

        final JdbcTemplate orders;
        final TransactionTemplate ordersTransactions;
        final TransactionTemplate ledgerTransactions;

        Databases(@Qualifier("ordersDataSource") DataSource orders, @Qualifier("ledgerDataSource") DataSource ledger) {
            this.orders = new JdbcTemplate(orders);
            this.ordersTransactions = new TransactionTemplate(new JdbcTransactionManager(orders));
            this.ledgerTransactions = new TransactionTemplate(new JdbcTransactionManager(ledger));
            this.orders.execute("CREATE TABLE IF NOT EXISTS purchase (id VARCHAR(36) PRIMARY KEY)");
        }

        @Bean(defaultCandidate = false, destroyMethod = "close")
        static HikariDataSource ordersDataSource(Environment environment) {
            return pool(environment, "test.orders.");
        }

        @Bean(defaultCandidate = false, destroyMethod = "close")
        static HikariDataSource ledgerDataSource(Environment environment) {
            return pool(environment, "test.ledger.");
        }

        private static HikariDataSource pool(Environment environment, String prefix) {
            HikariDataSource pool = new HikariDataSource();
            pool.setJdbcUrl(environment.getRequiredProperty(prefix + "url"));
            pool.setUsername(environment.getRequiredProperty(prefix + "username"));
            pool.setPassword(environment.getProperty(prefix + "password", ""));
            pool.setMaximumPoolSize(5);
            return pool;
        }

        @Bean
        static Calls calls() {
            return new Calls();
        }

        @Bean
        static HandlerRegistration<Placed> recorder(Calls calls) {
            return HandlerRegistration.of("recorder", Placed.class,
                    (event, metadata) -> calls.calls.add(metadata.getAggregateId()));
        }
    }
}
