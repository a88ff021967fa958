package dev.outbox.boot;

import dev.outbox.cluster.ClusterCoordinator;
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
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import java.time.Clock;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.transaction.PlatformTransactionManager;

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

    private static OutboxProcessor.Builder processor(RecordStore store, @Nullable RecordTransactions transactions,
            OutboxHandlers handlers, OutboxHandlerBeans handlerBeans, ObjectProvider<OutboxListener> listeners,
            ObjectProvider<OutboxObservation> observation, ObjectProvider<RecordContext> contexts, Clock clock,
            OutboxProperties properties, Environment environment) {
        return OutboxAssembly.processor(store, transactions, handlers, handlerBeans,
                listeners.orderedStream().toList(), observation.getIfAvailable(() -> OutboxObservation.NOOP),
                contexts.orderedStream().toList(), clock, properties, environment);
    }

    /**
     * The transactions of transactional handlers ({@link OutboxAssembly#recordTransactions}), through the outbox's
     * transaction manager: the one its write path uses.
     */
    private static @Nullable RecordTransactions recordTransactions(RecordStore store,
            @Nullable JdbcOutboxStores stores, ObjectProvider<PlatformTransactionManager> transactionManager,
            ObjectProvider<RecordTransactions> applications, OutboxProperties properties) {
        return OutboxAssembly.recordTransactions(store, stores, transactionManager.getIfUnique(),
                applications.getIfUnique(), properties);
    }

    /** Processing only when called ({@code processDueRecords()}), over every partition, outside any cluster. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnBooleanProperty(name = "outbox.processing.enabled", havingValue = false)
    static class OnDemandConfiguration {

        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        OutboxProcessor outboxProcessor(RecordStore store, ObjectProvider<JdbcOutboxStores> stores,
                ObjectProvider<PlatformTransactionManager> transactionManager,
                ObjectProvider<RecordTransactions> recordTransactions, OutboxHandlers handlers,
                OutboxHandlerBeans handlerBeans, ObjectProvider<OutboxListener> listeners,
                ObjectProvider<OutboxObservation> observation, ObjectProvider<RecordContext> contexts, Clock clock,
                OutboxProperties properties, Environment environment) {
            RecordTransactions transactions = recordTransactions(store, stores.getIfAvailable(), transactionManager,
                    recordTransactions, properties);
            return processor(store, transactions, handlers, handlerBeans, listeners, observation, contexts, clock,
                    properties, environment).build();
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
                JdbcOutboxStores stores, ObjectProvider<PlatformTransactionManager> transactionManager,
                ObjectProvider<RecordTransactions> recordTransactions, LocalWakeUps wakeUps,
                OutboxInstanceIdentity identity, OutboxHandlers handlers, OutboxHandlerBeans handlerBeans,
                ObjectProvider<OutboxListener> listeners, ObjectProvider<OutboxObservation> observation,
                ObjectProvider<RecordContext> contexts, ObjectProvider<PartitionListener> partitionListeners,
                Clock clock, OutboxProperties properties, Environment environment) {
            RecordTransactions transactions = recordTransactions(store, stores, transactionManager,
                    recordTransactions, properties);
            return OutboxAssembly.node(processor(store, transactions, handlers, handlerBeans, listeners, observation,
                    contexts, clock, properties, environment), stores, store, instances, partitions, wakeUps,
                    identity, handlers, PartitionListener.composite(partitionListeners.orderedStream().toList()),
                    clock, properties);
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
