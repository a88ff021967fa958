package dev.outbox.boot;

import dev.outbox.jdbc.OutboxSchemaInitializer;
import javax.sql.DataSource;
import liquibase.integration.spring.SpringLiquibase;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * The application's own Liquibase (Spring Boot's {@code SpringLiquibase}, whose master may include the outbox
 * changelog) runs with the outbox schema lock, so that instances starting together on an empty database run it one
 * after the other: see {@link OutboxSchemaInitializer#serializingSchemaChanges}.
 */
final class OutboxLiquibaseSerialization implements BeanPostProcessor {

    private final ObjectProvider<OutboxProperties> properties;

    OutboxLiquibaseSerialization(ObjectProvider<OutboxProperties> properties) {
        this.properties = properties;
    }

    @Override
    public Object postProcessBeforeInitialization(Object bean, String beanName) {
        if (bean instanceof SpringLiquibase liquibase) {
            DataSource dataSource = liquibase.getDataSource();
            if (dataSource != null) {
                liquibase.setDataSource(OutboxSchemaInitializer.serializingSchemaChanges(dataSource,
                        properties.getObject().tables()));
            }
        }
        return bean;
    }
}
