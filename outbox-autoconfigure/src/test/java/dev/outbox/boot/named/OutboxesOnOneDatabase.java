package dev.outbox.boot.named;

import dev.outbox.boot.NamedOutboxesAutoConfiguration;
import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.OutboxStoreAutoConfiguration;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.jdbc.testing.TestDatabase;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

/** The application of the tests of several outboxes' settings: the outbox auto-configurations, without processing. */
final class OutboxesOnOneDatabase {

    private OutboxesOnOneDatabase() {
    }

    /** The default outbox on {@code database} ({@code spring.datasource}), creating its tables. */
    static ApplicationContextRunner application(TestDatabase database) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(
                        org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                        org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration.class,
                        org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                        OutboxStoreAutoConfiguration.class,
                        OutboxHandlersAutoConfiguration.class,
                        OutboxWriteAutoConfiguration.class,
                        NamedOutboxesAutoConfiguration.class))
                .withPropertyValues(
                        "spring.datasource.url=" + database.jdbcUrl(),
                        "spring.datasource.username=" + database.username(),
                        "spring.datasource.password=" + database.password(),
                        "outbox.schema-initialization.enabled=true",
                        "outbox.processing.enabled=false");
    }
}
