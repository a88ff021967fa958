package dev.outbox.boot;

import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.context.RecordContexts;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.node.OutboxNode;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordContext;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import java.util.List;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;

/**
 * Processing, for applications that have something to process records with (a record processor, a handler bean or a
 * handler method). With {@code outbox.processing.enabled} (the default) an {@link OutboxNode} joins the cluster and
 * processes in the background from the start of the context to its close; without it, an {@link OutboxProcessor}
 * processes only when called.
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxHandlersAutoConfiguration.class})
@ConditionalOnBean(RecordStore.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
@Conditional(OutboxHandlerBeans.OnHandlersCondition.class)
public class OutboxProcessingAutoConfiguration {

    /** The processor's settings, handlers and observers, as every kind of processing uses them. */
    static OutboxProcessor.Builder processor(RecordStore store, OutboxHandlers handlers,
            OutboxHandlerBeans handlerBeans, List<OutboxListener> listeners, OutboxObservation observation,
            List<RecordContext> contexts, Clock clock, OutboxProperties properties, Environment environment) {
        OutboxProcessor.Builder builder = OutboxProcessor.builder()
                .recordStore(store)
                .routes(handlers)
                .retryPolicy(handlerBeans.defaultRetryPolicy())
                .listener(OutboxListener.composite(listeners))
                // the writer's context (MDC entries, say) set around each handler call
                .observation(RecordContexts.restoring(observation, properties.context().with(contexts)))
                .clock(clock)
                .options(properties.toProcessingOptions());
        // spring.threads.virtual.enabled on Java 21+, as for Spring Boot's own executors.
        if (Threading.VIRTUAL.isActive(environment)) {
            builder.workerThreadFactory(new VirtualThreadTaskExecutor("outbox-worker-").getVirtualThreadFactory());
        }
        return builder;
    }

    private static OutboxProcessor.Builder processor(RecordStore store, OutboxHandlers handlers,
            OutboxHandlerBeans handlerBeans, ObjectProvider<OutboxListener> listeners,
            ObjectProvider<OutboxObservation> observation, ObjectProvider<RecordContext> contexts, Clock clock,
            OutboxProperties properties, Environment environment) {
        return processor(store, handlers, handlerBeans, listeners.orderedStream().toList(),
                observation.getIfAvailable(() -> OutboxObservation.NOOP), contexts.orderedStream().toList(), clock,
                properties, environment);
    }

    /**
     * A node of one outbox: its processor, its membership of that outbox's cluster (registered as {@code identity},
     * with what {@code handlers} can process), purge unless off, and the wake-ups of this JVM and others.
     */
    static OutboxNode node(OutboxProcessor.Builder processor, JdbcOutboxStores stores, RecordStore store,
            InstanceStore instances, PartitionStore partitions, LocalWakeUps wakeUps, OutboxInstanceIdentity identity,
            OutboxHandlers handlers, PartitionListener partitionListener, Clock clock, OutboxProperties properties) {
        OutboxNode.Builder node = OutboxNode.builder()
                .processor(processor)
                .cluster(ClusterCoordinator.builder()
                        .instanceStore(instances)
                        .heartbeatStore(stores.heartbeats())
                        .partitionStore(partitions)
                        .instanceId(identity.id())
                        .hostname(identity.hostname())
                        .port(identity.port())
                        .capabilities(handlers.capabilities().withVersion(identity.version()))
                        .timings(properties.instance().timings())
                        .handOverTimeout(properties.instance().handOverTimeout())
                        .partitionListener(partitionListener))
                .wakeUpSource(wakeUps)
                .wakeUpSource(stores.notifications());
        if (properties.purge().enabled()) {
            node.purger(properties.purge().toPurger(OutboxPurger.builder())
                    .store(OutboxStoreAutoConfiguration.storeSide(RecordPurge.class, store, stores)).clock(clock));
        }
        return node.build();
    }

    /** Processing only when called ({@code processDueRecords()}), over every partition, outside any cluster. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "outbox.processing.enabled", havingValue = false)
    static class OnDemandConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        OutboxProcessor outboxProcessor(RecordStore store, OutboxHandlers handlers, OutboxHandlerBeans handlerBeans,
                ObjectProvider<OutboxListener> listeners, ObjectProvider<OutboxObservation> observation,
                ObjectProvider<RecordContext> contexts, Clock clock, OutboxProperties properties,
                Environment environment) {
            return processor(store, handlers, handlerBeans, listeners, observation, contexts, clock, properties,
                    environment).build();
        }
    }

    /** Processing in the background: this instance's node, and its parts as beans for the views over them. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "outbox.processing.enabled", matchIfMissing = true)
    static class BackgroundConfiguration {

        /** The node: processor, cluster membership, purge (unless off), and the wake-ups of this JVM and others. */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        @DependsOnDatabaseInitialization
        OutboxNode outboxNode(RecordStore store, InstanceStore instances, PartitionStore partitions,
                JdbcOutboxStores stores, LocalWakeUps wakeUps, OutboxInstanceIdentity identity,
                OutboxHandlers handlers, OutboxHandlerBeans handlerBeans, ObjectProvider<OutboxListener> listeners,
                ObjectProvider<OutboxObservation> observation, ObjectProvider<RecordContext> contexts,
                ObjectProvider<PartitionListener> partitionListeners, Clock clock, OutboxProperties properties,
                Environment environment) {
            return node(processor(store, handlers, handlerBeans, listeners, observation, contexts, clock, properties,
                    environment), stores, store, instances, partitions, wakeUps, identity, handlers,
                    PartitionListener.composite(partitionListeners.orderedStream().toList()), clock, properties);
        }

        /** Starts the node once the context is refreshed, and hands its partitions over before the context closes. */
        @Bean
        OutboxNodeLifecycle outboxNodeLifecycle(OutboxNode node) {
            return new OutboxNodeLifecycle(node);
        }

        /** The node's processor; the node closes it. */
        @Bean(destroyMethod = "")
        OutboxProcessor outboxProcessor(OutboxNode node) {
            return node.processor();
        }

        /** The node's coordinator, for health and the actuator; the node closes it. */
        @Bean(destroyMethod = "")
        ClusterCoordinator outboxClusterCoordinator(OutboxNode node) {
            return node.coordinator().orElseThrow(() -> new IllegalStateException(
                    "Outbox: the application's OutboxNode has no cluster coordinator"));
        }

        /** The node's purger, when {@code outbox.purge.enabled}; the node closes it. */
        @Bean(destroyMethod = "")
        @ConditionalOnBooleanProperty(name = "outbox.purge.enabled", matchIfMissing = true)
        OutboxPurger outboxPurger(OutboxNode node) {
            return node.purger().orElseThrow(() -> new IllegalStateException(
                    "Outbox: the application's OutboxNode has no purger"));
        }
    }
}
