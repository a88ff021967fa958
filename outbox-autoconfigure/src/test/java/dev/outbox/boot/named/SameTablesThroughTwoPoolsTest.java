package dev.outbox.boot.named;

import static org.assertj.core.api.Assertions.assertThat;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.boot.NamedOutboxes;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.jdbc.testing.TestDatabase;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * Two outboxes on the same tables stop the start however their DataSources reach the database: a second pool on one
 * PostgreSQL or MariaDB database, through {@code localhost} where the first goes through {@code 127.0.0.1}, with other
 * pool settings and another URL parameter, is the same database to the check, which asks the database where the
 * tables are. Other tables in that database, or another database on that server, are accepted.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SameTablesThroughTwoPoolsTest {

    private static final String BILLING_ON_DEFAULT =
            "outbox.outboxes.billing uses the tables of the default outbox (outbox.*)";

    private final Map<TestDatabase.Kind, TestDatabase> databases = new EnumMap<>(TestDatabase.Kind.class);
    /** Another database on the same server as {@link #databases}' one of that kind. */
    private final Map<TestDatabase.Kind, TestDatabase> neighbours = new EnumMap<>(TestDatabase.Kind.class);

    @BeforeAll
    void createDatabases() {
        for (TestDatabase.Kind kind : List.of(TestDatabase.Kind.POSTGRES, TestDatabase.Kind.MARIADB)) {
            databases.put(kind, TestDatabase.create(kind));
            neighbours.put(kind, TestDatabase.create(kind));
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.values().forEach(TestDatabase::close);
        neighbours.values().forEach(TestDatabase::close);
    }

    /** The default outbox on a pool through {@code first}'s own URL, and {@code secondPool} on {@code second}. */
    private ApplicationContextRunner application(TestDatabase first, TestDatabase second) {
        return OutboxesOnOneDatabase.application(first)
                .withUserConfiguration(SecondPool.class)
                .withPropertyValues(
                        "test.second.url=" + otherwiseWritten(second),
                        "test.second.username=" + second.username(),
                        "test.second.password=" + second.password());
    }

    /**
     * The URL of {@code database} as another team would write it: {@code localhost} for {@code 127.0.0.1} (or the
     * other way round), and a parameter of its own.
     */
    private static String otherwiseWritten(TestDatabase database) {
        String url = database.jdbcUrl();
        if (url.contains("//127.0.0.1:")) {
            url = url.replace("//127.0.0.1:", "//localhost:");
        } else if (url.contains("//localhost:")) {
            url = url.replace("//localhost:", "//127.0.0.1:");
        }
        String parameter = database.kind() == TestDatabase.Kind.POSTGRES ? "ApplicationName=second-pool"
                : "connectTimeout=7000";
        return url + (url.contains("?") ? "&" : "?") + parameter;
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aSecondPoolOnTheDefaultOutboxsTablesStopsTheStartNamingBothOutboxesAndTheTables(TestDatabase.Kind kind) {
        TestDatabase database = databases.get(kind);

        application(database, database).withPropertyValues("outbox.outboxes.billing.data-source=secondPool")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining(BILLING_ON_DEFAULT)
                        .hasMessageContaining("outbox_{record,instance,partition}")
                        .hasMessageContaining(database.databaseName()));
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void twoNamedOutboxesOnTheSameTablesThroughTheTwoPoolsStopTheStart(TestDatabase.Kind kind) {
        TestDatabase database = databases.get(kind);

        application(database, database).withPropertyValues(
                        "outbox.outboxes.billing.data-source=dataSource",
                        "outbox.outboxes.billing.table-prefix=billing_",
                        "outbox.outboxes.ledger.data-source=secondPool",
                        "outbox.outboxes.ledger.table-prefix=billing_")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("outbox.outboxes.ledger uses the tables of outbox.outboxes.billing")
                        .hasMessageContaining("billing_{record,instance,partition}"));
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void theSchemaTheConnectionResolvesToNamedOutrightIsTheSameSchema(TestDatabase.Kind kind) {
        TestDatabase database = databases.get(kind);
        // on MariaDB a schema is a database
        String ownSchema = kind == TestDatabase.Kind.POSTGRES ? "public" : database.databaseName();

        application(database, database).withPropertyValues(
                        "outbox.outboxes.billing.data-source=secondPool",
                        "outbox.outboxes.billing.schema=" + ownSchema)
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining(BILLING_ON_DEFAULT));
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void theSecondPoolMayHoldAnOutboxWithOtherTables(TestDatabase.Kind kind) {
        TestDatabase database = databases.get(kind);

        application(database, database).withPropertyValues(
                        "outbox.outboxes.billing.data-source=secondPool",
                        "outbox.outboxes.billing.table-prefix=billing_outbox_",
                        "outbox.outboxes.billing.schema-initialization.enabled=true")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(NamedOutboxes.class).outbox("billing").schedule(new Issued("i-1"), "billing-i-1");

                    JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
                    assertThat(jdbc.queryForList("SELECT aggregate_id FROM billing_outbox_record", String.class))
                            .contains("billing-i-1");
                    assertThat(jdbc.queryForList("SELECT aggregate_id FROM outbox_record", String.class))
                            .doesNotContain("billing-i-1");
                });
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void anotherDatabaseOnTheSameServerMayHoldTheSameTables(TestDatabase.Kind kind) {
        application(databases.get(kind), neighbours.get(kind)).withPropertyValues(
                        "outbox.outboxes.billing.data-source=secondPool",
                        "outbox.outboxes.billing.schema-initialization.enabled=true")
                .run(context -> assertThat(context).hasNotFailed());
    }

    @ParameterizedTest
    @EnumSource(names = {"POSTGRES", "MARIADB"})
    void aPoolOfAnotherUserOnTheSameTablesStopsTheStartToo(TestDatabase.Kind kind) {
        TestDatabase database = databases.get(kind);
        String user = "outbox_u_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        if (kind == TestDatabase.Kind.POSTGRES) {
            execute(database, "CREATE ROLE " + user + " LOGIN");
        } else {
            execute(database, "CREATE USER '" + user + "'@'%'");
            execute(database, "GRANT SELECT ON " + database.databaseName() + ".* TO '" + user + "'@'%'");
        }
        try {
            application(database, database).withPropertyValues(
                            "test.second.username=" + user,
                            "test.second.password=",
                            "outbox.outboxes.billing.data-source=secondPool")
                    .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                            .hasMessageContaining(BILLING_ON_DEFAULT));
        } finally {
            execute(database, kind == TestDatabase.Kind.POSTGRES ? "DROP ROLE " + user
                    : "DROP USER '" + user + "'@'%'");
        }
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void aDatabaseThatCannotTellWhereTheTablesAreDoesNotStopTheStartAndSaysSoOnce(CapturedOutput output) {
        TestDatabase admin = databases.get(TestDatabase.Kind.POSTGRES);
        String user = "outbox_u_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        execute(admin, "CREATE ROLE " + user + " LOGIN");
        try {
            try (TestDatabase restricted = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
                // a hardened database: the server's identity is the superuser's only
                execute(restricted, "REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC");
                execute(restricted, "GRANT CREATE ON SCHEMA public TO " + user);

                application(restricted, restricted).withPropertyValues(
                                "test.second.username=" + user,
                                "test.second.password=",
                                "outbox.outboxes.billing.data-source=secondPool",
                                "outbox.outboxes.billing.table-prefix=billing_outbox_",
                                "outbox.outboxes.billing.schema-initialization.enabled=true")
                        .run(context -> assertThat(context).hasNotFailed());
            }
            assertThat(output.getAll().lines().filter(line -> line.contains("cannot ask the database")))
                    .singleElement().asString()
                    .contains("[outbox.outboxes.billing]", "permission denied for function pg_control_system");
        } finally {
            execute(admin, "DROP ROLE " + user);
        }
    }

    private static void execute(TestDatabase database, String sql) {
        new JdbcTemplate(database.dataSource()).execute(sql);
    }

    record Issued(String id) {
    }

    /** A second pool, not a default candidate, so that {@code spring.datasource} stays auto-configured. */
    @Configuration(proxyBeanMethods = false)
    static class SecondPool {

        @Bean(defaultCandidate = false, destroyMethod = "close")
        static HikariDataSource secondPool(Environment environment) {
            HikariDataSource pool = new HikariDataSource();
            pool.setPoolName("second");
            pool.setJdbcUrl(environment.getRequiredProperty("test.second.url"));
            pool.setUsername(environment.getRequiredProperty("test.second.username"));
            pool.setPassword(environment.getProperty("test.second.password", ""));
            pool.setMaximumPoolSize(2);
            pool.setConnectionTimeout(15_000);
            return pool;
        }

        @Bean
        static HandlerRegistration<Issued> mailer() {
            return HandlerRegistration.of("mailer", Issued.class, (event, metadata) -> { });
        }
    }
}
