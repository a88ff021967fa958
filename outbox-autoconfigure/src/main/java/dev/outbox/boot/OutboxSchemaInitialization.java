package dev.outbox.boot;

import dev.outbox.jpa.OutboxSchemaInitializer;
import dev.outbox.jpa.dialect.OutboxTables;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the outbox changelog to the configured tables when {@code outbox.schema-initialization.enabled=true}.
 * Registered as a database initializer, so the stores, the JPA entity manager factory and other beans that depend on
 * database initialization wait for it.
 */
final class OutboxSchemaInitialization implements InitializingBean {

    private final DataSource dataSource;
    private final OutboxTables tables;

    OutboxSchemaInitialization(DataSource dataSource, OutboxTables tables) {
        this.dataSource = dataSource;
        this.tables = tables;
    }

    @Override
    public void afterPropertiesSet() {
        OutboxSchemaInitializer.apply(dataSource, tables);
    }
}
