package dev.outbox.boot;

import dev.outbox.jdbc.OutboxSchemaInitializer;
import dev.outbox.jdbc.dialect.OutboxTables;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the outbox changelog to the configured tables when {@code outbox.schema-initialization.enabled=true}, once
 * every outbox's settings have passed the {@link OutboxSettingsCheck} (a named outbox's bad ones stop the start before
 * the default outbox's tables are made).
 * Registered as a database initializer, so the stores, the JPA entity manager factory and other beans that depend on
 * database initialization wait for it.
 */
final class OutboxSchemaInitialization implements InitializingBean {

    private final DataSource dataSource;
    private final OutboxTables tables;
    private final OutboxSettingsCheck settingsCheck;

    OutboxSchemaInitialization(DataSource dataSource, OutboxTables tables, OutboxSettingsCheck settingsCheck) {
        this.dataSource = dataSource;
        this.tables = tables;
        this.settingsCheck = settingsCheck;
    }

    @Override
    public void afterPropertiesSet() {
        settingsCheck.run();
        OutboxSchemaInitializer.apply(dataSource, tables);
    }
}
