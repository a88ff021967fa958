package dev.outbox.boot.named;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestDatabase.Kind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DriverManagerDataSource;

/**
 * Issue 29: every outbox's settings, the default outbox's and each named one's, are checked before the first outbox
 * table is made, and a bad one stops the start in one line naming the property and the value. A schema that did not
 * exist failed after some 200 lines of Liquibase exceptions that named neither; with a named outbox, the default
 * outbox's tables had been created already.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class SettingsCheckedBeforeAnyTableTest {

    private final Map<Kind, TestDatabase> databases = new EnumMap<>(Kind.class);

    @BeforeAll
    void createDatabases() {
        for (Kind kind : Kind.values()) {
            databases.put(kind, TestDatabase.create(kind));
        }
    }

    @AfterAll
    void dropDatabases() {
        databases.values().forEach(TestDatabase::close);
    }

    /** The default outbox on {@code database}, creating its tables, and {@code billingDataSource} on it too. */
    private static ApplicationContextRunner application(TestDatabase database) {
        return OutboxesOnOneDatabase.application(database).withUserConfiguration(BillingDataSource.class);
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMissingSchemaStopsTheStartInOneLineNamingThePropertyAndNoTableIsMade(Kind kind) {
        TestDatabase database = databases.get(kind);

        application(database).withPropertyValues("outbox.schema=nosuch").run(context -> {
            assertThat(context).hasFailed();
            assertOneLineFailure(context.getStartupFailure(), missingSchemaMessage("outbox.schema", database));
        });
        assertThat(database.tables()).as("no outbox table anywhere").isEmpty();
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aNamedOutboxsMissingSchemaStopsTheStartBeforeTheDefaultOutboxsTablesAreMade(Kind kind) {
        TestDatabase database = databases.get(kind);

        application(database).withPropertyValues(
                        "outbox.outboxes.billing.data-source=billingDataSource",
                        "outbox.outboxes.billing.schema=nosuch",
                        "outbox.outboxes.billing.schema-initialization.enabled=true")
                .run(context -> {
                    assertThat(context).hasFailed();
                    assertOneLineFailure(context.getStartupFailure(),
                            missingSchemaMessage("outbox.outboxes.billing.schema", database));
                });
        assertThat(database.tables()).as("the default outbox's tables were not made").isEmpty();
    }

    Stream<Arguments> badNamedOutboxSettings() {
        List<Arguments> cases = new ArrayList<>();
        for (Kind kind : Kind.values()) {
            cases.add(Arguments.of(kind, "outbox.outboxes.billing.data-source is 'billingDatasource', which is no "
                    + "DataSource bean", List.of("outbox.outboxes.billing.data-source=billingDatasource")));
            cases.add(Arguments.of(kind, "outbox.outboxes.billing.transaction-manager is 'nope', which is no "
                    + "PlatformTransactionManager bean", List.of("outbox.outboxes.billing.data-source=billingDataSource",
                    "outbox.outboxes.billing.table-prefix=billing_",
                    "outbox.outboxes.billing.transaction-manager=nope")));
            cases.add(Arguments.of(kind, "outbox.outboxes.billing uses the tables of the default outbox (outbox.*)",
                    List.of("outbox.outboxes.billing.data-source=billingDataSource")));
        }
        return cases.stream();
    }

    @ParameterizedTest
    @MethodSource("badNamedOutboxSettings")
    void aNamedOutboxsBadSettingsStopTheStartBeforeAnyTableIsMade(Kind kind, String message, List<String> settings) {
        TestDatabase database = databases.get(kind);

        application(database).withPropertyValues(settings.toArray(String[]::new)).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().hasMessageStartingWith(message);
        });
        assertThat(database.tables()).as("the default outbox's tables were not made").isEmpty();
    }

    /** One line naming the property and the value, behind a short chain of Spring's wrappers and no Liquibase. */
    private static void assertOneLineFailure(Throwable failure, String message) {
        assertThat(failure).rootCause().hasMessage(message);
        assertThat(message).doesNotContain("\n");
        List<Throwable> chain = new ArrayList<>();
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            chain.add(cause);
        }
        assertThat(chain).hasSizeLessThanOrEqualTo(3)
                .noneMatch(cause -> cause.getClass().getName().startsWith("liquibase."));
    }

    private static String missingSchemaMessage(String property, TestDatabase database) {
        String where = switch (database.kind()) {
            case POSTGRES -> "which does not exist in database " + database.databaseName() + " on PostgreSQL";
            case H2 -> "which does not exist in database " + database.databaseName().toUpperCase(Locale.ROOT)
                    + " on H2";
            case MARIADB -> "which is no database of the MariaDB server (a schema there is a database)";
        };
        return property + " is 'nosuch', " + where + ": create it first (the outbox does not create schemas)";
    }

    /** A second DataSource on the same database, not a default candidate, for the named outbox. */
    @Configuration(proxyBeanMethods = false)
    static class BillingDataSource {

        @Bean(defaultCandidate = false)
        static DataSource billingDataSource(Environment environment) {
            return new DriverManagerDataSource(environment.getRequiredProperty("spring.datasource.url"),
                    environment.getRequiredProperty("spring.datasource.username"),
                    environment.getProperty("spring.datasource.password", ""));
        }
    }
}
