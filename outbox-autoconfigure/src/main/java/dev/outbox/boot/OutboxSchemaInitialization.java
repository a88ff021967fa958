package dev.outbox.boot;

import dev.outbox.jpa.OutboxSchemaInitializer;
import javax.sql.DataSource;
import org.springframework.beans.factory.InitializingBean;

/**
 * Applies the outbox changelog when {@code outbox.schema-initialization.enabled=true}. Registered as a database
 * initializer, so the JPA entity manager factory and other beans that depend on database initialization wait for it.
 */
final class OutboxSchemaInitialization implements InitializingBean {

    private final DataSource dataSource;

    OutboxSchemaInitialization(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    @Override
    public void afterPropertiesSet() {
        OutboxSchemaInitializer.apply(dataSource);
    }
}
