package dev.outbox.boot.events;

import dev.outbox.Outbox;
import dev.outbox.boot.OutboxWriteAutoConfiguration;
import dev.outbox.events.EventMappings;
import dev.outbox.events.OutboxEventListener;
import dev.outbox.events.OutboxOnlyEventMulticaster;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackages;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.support.AbstractApplicationContext;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Application events marked for the outbox are written as records in the publisher's transaction
 * ({@code outbox.events.enabled}, on by default); the application's own listeners still receive them unless
 * {@code outbox.events.local-listeners=false}. With Spring Modulith's events API on the class path, the
 * {@code @Externalized} events of the application's packages are found at startup, and the publishers send them to
 * their targets.
 */
@AutoConfiguration(after = OutboxWriteAutoConfiguration.class)
@ConditionalOnClass(OutboxEventListener.class)
@ConditionalOnBooleanProperty(name = {"outbox.enabled", "outbox.events.enabled"}, matchIfMissing = true)
@EnableConfigurationProperties(OutboxEventsProperties.class)
public class OutboxEventsAutoConfiguration {

    private static final Logger log = LoggerFactory.getLogger(OutboxEventsAutoConfiguration.class);

    @Bean
    @ConditionalOnMissingBean
    EventMappings outboxEventMappings(ConfigurableListableBeanFactory beanFactory) {
        ClassLoader classLoader = beanFactory.getBeanClassLoader();
        EventMappings mappings = EventMappings.create(classLoader);
        mappings.externalized().ifPresent(externalized -> {
            List<String> packages = AutoConfigurationPackages.has(beanFactory)
                    ? AutoConfigurationPackages.get(beanFactory) : List.of();
            int found = externalized.scan(classLoader == null ? getClass().getClassLoader() : classLoader, packages);
            log.info("Outbox: {} @Externalized event class(es) in {}", found, packages);
        });
        return mappings;
    }

    /** Only with {@code outbox.events.local-listeners=false}, and when the application has no multicaster of its own. */
    @Bean(AbstractApplicationContext.APPLICATION_EVENT_MULTICASTER_BEAN_NAME)
    @ConditionalOnBooleanProperty(name = "outbox.events.local-listeners", havingValue = false)
    @ConditionalOnMissingBean(name = AbstractApplicationContext.APPLICATION_EVENT_MULTICASTER_BEAN_NAME)
    static OutboxOnlyEventMulticaster outboxOnlyEventMulticaster(ObjectProvider<EventMappings> mappings) {
        return new OutboxOnlyEventMulticaster(mappings::getObject);
    }

    @Bean
    @ConditionalOnBean(Outbox.class)
    @ConditionalOnMissingBean
    OutboxEventListener outboxEventListener(Outbox outbox, EventMappings mappings, OutboxEventsProperties properties,
            ObjectProvider<PlatformTransactionManager> transactionManager) {
        return new OutboxEventListener(outbox, mappings, properties.outsideTransaction(),
                transactionManager.getIfUnique());
    }
}
