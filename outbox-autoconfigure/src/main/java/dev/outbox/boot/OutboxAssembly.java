package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadSerializer;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.context.RecordContexts;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jdbc.JdbcOutboxRecordRepository;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.node.OutboxNode;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordContext;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.thread.Threading;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * How one outbox is put together from its stores, its settings and the parts an application shares among its
 * outboxes: the write repository and writer, the processor and node, the monitor and admin. The default outbox's
 * auto-configuration and every named outbox ({@link NamedOutboxFactory}) assemble theirs here, so the two cannot
 * drift apart.
 */
final class OutboxAssembly {

    private OutboxAssembly() {
    }

    /**
     * Saves records in the application's transaction, one per subscribed handler, with the writer's context captured
     * once per record before the fan-out copies it for each handler.
     */
    static OutboxRecordRepository fannedOut(OutboxRecordRepository repository, OutboxHandlers handlers,
            List<RecordContext> contexts, OutboxProperties properties) {
        return RecordContexts.capturing(handlers.fanningOut(repository), properties.context().with(contexts));
    }

    /**
     * The write repository of one outbox on plain JDBC: on the connection of the transaction bound to
     * {@code dataSource}, fanned out to {@code handlers}; a commit wakes {@code wakeUps} and, where the database can,
     * the other instances.
     */
    static OutboxRecordRepository jdbcRepository(DataSource dataSource, PlatformTransactionManager transactionManager,
            JdbcOutboxStores stores, LocalWakeUps wakeUps, OutboxHandlers handlers, OutboxObservation observation,
            List<RecordContext> contexts, OutboxProperties properties) {
        return fannedOut(new JdbcOutboxRecordRepository(dataSource, transactionManager, stores.statements(),
                properties.maxPayloadBytes(), stores.commitHooks(wakeUps), observation), handlers, contexts,
                properties);
    }

    /** The writer of one outbox: events serialized into records saved through {@code repository}. */
    static Outbox writer(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock,
            OutboxProperties properties) {
        return Outbox.builder().repository(repository).serializer(serializer).clock(clock)
                .maxPayloadBytes(properties.maxPayloadBytes()).build();
    }

    /**
     * The monitor of one outbox; {@code cluster} is null where it processes nothing in the background, and
     * {@code handlers} null where it has none.
     */
    static OutboxMonitor monitor(RecordStatistics statistics, @Nullable OutboxHandlers handlers,
            @Nullable ClusterCoordinator cluster, InstanceStore instances, PartitionStore partitions, Clock clock,
            OutboxProperties properties) {
        OutboxMonitor.Builder monitor = OutboxMonitor.builder().statistics(statistics).clock(clock)
                .refreshInterval(properties.metrics().refreshInterval())
                .countCompletedRecords(properties.metrics().countCompletedRecords())
                .ownership(OwnedPartitions::none);
        if (handlers != null) {
            monitor.capabilities(handlers.capabilities());
        }
        if (cluster != null) {
            monitor.ownership(cluster).instances(instances, properties.instance().timings().staleTimeout())
                    .partitions(partitions);
        }
        return monitor.build();
    }

    /** The admin of one outbox: a change makes records due, which wakes this JVM's processor of that outbox. */
    static OutboxAdmin admin(RecordAdministration records, LocalWakeUps wakeUps, Clock clock) {
        return OutboxAdmin.builder().store(records).clock(clock).afterChange(wakeUps::recordsDue).build();
    }

    /**
     * One more side of the record store (statistics, administration, purge): the application's {@link RecordStore}
     * when it has that side too, else the JDBC store, which has them all.
     */
    static <T> T storeSide(Class<T> side, RecordStore store, JdbcOutboxStores stores) {
        return side.isInstance(store) ? side.cast(store) : side.cast(stores.records());
    }

    /**
     * The transactions transactional handlers run in with their records' completions: the application's when it
     * defines them; else, when the processor's store is the JDBC store of {@code stores}, that store's through the
     * outbox's transaction manager; else none (a processor with transactional handlers then refuses to be built).
     */
    static @Nullable RecordTransactions recordTransactions(RecordStore store, @Nullable JdbcOutboxStores stores,
            @Nullable PlatformTransactionManager transactionManager, @Nullable RecordTransactions applications,
            OutboxProperties properties) {
        if (applications != null) {
            return applications;
        }
        if (stores == null || store != stores.records() || transactionManager == null) {
            return null;
        }
        return stores.recordTransactions(transactionManager, idleLimit(properties));
    }

    /**
     * How long a transactional handler's session may idle inside its transaction: the stale-instance timeout, after
     * which its partitions are taken over, so that a frozen instance's row locks do not hold up their next owners.
     */
    static Duration idleLimit(OutboxProperties properties) {
        return properties.instance().timings().staleTimeout();
    }

    /**
     * The processor's settings, handlers and observers, as every kind of processing uses them; {@code transactions}
     * as {@link #recordTransactions} chooses them.
     */
    static OutboxProcessor.Builder processor(RecordStore store, @Nullable RecordTransactions transactions,
            OutboxHandlers handlers, OutboxHandlerBeans handlerBeans, List<OutboxListener> listeners,
            OutboxObservation observation, List<RecordContext> contexts, Clock clock, OutboxProperties properties,
            Environment environment) {
        OutboxProcessor.Builder builder = OutboxProcessor.builder()
                .recordStore(store)
                .recordTransactions(transactions)
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
                    .store(storeSide(RecordPurge.class, store, stores)).clock(clock));
        }
        return node.build();
    }
}
