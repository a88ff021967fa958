package dev.outbox.boot;

import dev.outbox.PayloadSerializer;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.RecordContext;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The further outboxes of {@code outbox.outboxes.<name>}, each on its own DataSource, as the {@link NamedOutboxes}
 * bean; empty when none is configured.
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxHandlersAutoConfiguration.class,
        OutboxWriteAutoConfiguration.class, OutboxProcessingAutoConfiguration.class,
        OutboxMetricsAutoConfiguration.class})
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class NamedOutboxesAutoConfiguration {

    @Bean(destroyMethod = "close")
    @DependsOnDatabaseInitialization
    NamedOutboxes namedOutboxes(ListableBeanFactory beans, OutboxProperties properties, OutboxHandlers handlers,
            OutboxHandlerBeans handlerBeans, PayloadSerializer serializer, ObjectProvider<OutboxListener> listeners,
            ObjectProvider<PartitionListener> partitionListeners, ObjectProvider<OutboxObservation> observation,
            ObjectProvider<RecordContext> contexts, ObjectProvider<OutboxMeters> meters,
            OutboxInstanceIdentity identity, Clock clock, Environment environment, OutboxSettingsCheck settingsCheck) {
        return new NamedOutboxFactory(beans, properties, handlers, handlerBeans, serializer,
                listeners.orderedStream().toList(), partitionListeners.orderedStream().toList(),
                observation.getIfAvailable(() -> OutboxObservation.NOOP), contexts.orderedStream().toList(),
                meters.getIfAvailable(), identity, clock, environment).create(settingsCheck);
    }
}
