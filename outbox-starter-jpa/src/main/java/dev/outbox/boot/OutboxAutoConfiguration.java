package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadDeserializer;
import dev.outbox.PayloadSerializer;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jpa.JdbcInstanceStore;
import dev.outbox.jpa.JdbcPartitionStore;
import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jpa.PostgresNotifications;
import dev.outbox.jpa.OutboxRecordEntity;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.partition.ClusterCoordinator;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordPurge;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.thread.Threading;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.core.task.VirtualThreadTaskExecutor;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;
import tools.jackson.databind.json.JsonMapper;

/**
 * Wires the outbox into a Spring Boot application on JPA: the write path ({@link Outbox},
 * {@link OutboxRecordRepository}), the processing engine and its lifecycle, and optionally the schema.
 * Every bean backs off when the application defines its own.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
        "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration",
        "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"})
@ConditionalOnClass(EntityManagerFactory.class)
@ConditionalOnBean({DataSource.class, EntityManagerFactory.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OutboxProperties.class)
@AutoConfigurationPackage(basePackageClasses = OutboxRecordEntity.class)
public class OutboxAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    Clock outboxClock() {
        return Clock.systemUTC();
    }

    @Bean
    @ConditionalOnBooleanProperty("outbox.schema-initialization.enabled")
    OutboxSchemaInitialization outboxSchemaInitialization(DataSource dataSource) {
        return new OutboxSchemaInitialization(dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    DatabaseDialect outboxDatabaseDialect(DataSource dataSource) {
        return DatabaseDialect.detect(dataSource);
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxRecordRepository outboxRecordRepository(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, DataSource dataSource, DatabaseDialect dialect,
            OutboxProperties properties, ObjectProvider<OutboxSchemaInitialization> schema,
            ObjectProvider<OutboxProcessor> processor, ObjectProvider<OutboxObservation> observation,
            OutboxHandlers handlers) {
        schema.ifAvailable(initialized -> { });
        boolean notify = properties.listenNotify() && dialect == DatabaseDialect.POSTGRESQL;
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        return handlers.fanningOut(JpaOutboxRecordRepository.create(entityManagerFactory, transactionManager,
                properties.maxPayloadBytes(), new JpaOutboxRecordRepository.CommitHooks() {
                    @Override
                    public void beforeCommit(Set<Integer> partitions) {
                        if (notify) {
                            PostgresNotifications.notifyPartitions(jdbc, partitions);
                        }
                    }

                    @Override
                    public void afterCommit(Set<Integer> partitions) {
                        processor.ifAvailable(engine -> engine.wakeUpFor(partitions));
                    }
                }, observation.getIfAvailable(() -> OutboxObservation.NOOP)));
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxInstanceIdentity outboxInstanceIdentity(OutboxProperties properties, Environment environment) {
        return OutboxInstanceIdentity.of(properties.instance(), environment);
    }

    /** Status writes of records delivered under a partition epoch are fenced on this instance owning it. */
    @Bean
    @ConditionalOnMissingBean
    RecordStore outboxRecordStore(DataSource dataSource, DatabaseDialect dialect, OutboxInstanceIdentity identity,
            ObjectProvider<OutboxSchemaInitialization> schema) {
        schema.ifAvailable(initialized -> { });
        return new JdbcRecordStore(dataSource, dialect, identity.id());
    }

    /**
     * Backlog and cluster figures for metrics, health and the actuator endpoint, read at most once per
     * {@code outbox.metrics.refresh-interval}.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxMonitor outboxMonitor(RecordStore store, DataSource dataSource, DatabaseDialect dialect,
            OutboxInstanceIdentity identity, ObjectProvider<ClusterCoordinator> coordinator,
            ObjectProvider<InstanceStore> instances, ObjectProvider<PartitionStore> partitions, Clock clock,
            OutboxProperties properties) {
        OutboxMonitor.Builder monitor = OutboxMonitor.builder()
                .statistics(storeSide(RecordStatistics.class, store, dataSource, dialect, identity)).clock(clock)
                .refreshInterval(properties.metrics().refreshInterval());
        ClusterCoordinator cluster = coordinator.getIfAvailable();
        if (cluster == null) {
            // Without background processing this instance owns no partition (it may still run explicit passes).
            monitor.ownership(OwnedPartitions::none);
        } else {
            monitor.ownership(cluster)
                    .instances(instances.getObject(),
                            Duration.ofSeconds(properties.instance().staleInstanceTimeoutSeconds()))
                    .partitions(partitions.getObject());
        }
        return monitor.build();
    }

    /** Operations on FAILED records; a retry wakes the local processor. */
    @Bean
    @ConditionalOnMissingBean
    OutboxAdmin outboxAdmin(RecordStore store, DataSource dataSource, DatabaseDialect dialect,
            OutboxInstanceIdentity identity, ObjectProvider<OutboxProcessor> processor, Clock clock) {
        return OutboxAdmin.builder()
                .store(storeSide(RecordAdministration.class, store, dataSource, dialect, identity)).clock(clock)
                .afterChange(() -> processor.ifAvailable(OutboxProcessor::wakeUp)).build();
    }

    /**
     * One more side of the record store (statistics, administration, purge): the application's {@link RecordStore}
     * when it has it, else the JDBC store, which has them all.
     */
    static <T> T storeSide(Class<T> side, RecordStore store, DataSource dataSource, DatabaseDialect dialect,
            OutboxInstanceIdentity identity) {
        return side.isInstance(store) ? side.cast(store)
                : side.cast(new JdbcRecordStore(dataSource, dialect, identity.id()));
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadSerializer outboxPayloadSerializer(ObjectProvider<JsonMapper> jsonMapper) {
        JsonMapper mapper = jsonMapper.getIfAvailable(() -> JsonMapper.builder().build());
        return mapper::writeValueAsString;
    }

    /** Reads payloads into typed handlers' parameter types with the application's Jackson mapper. */
    @Bean
    @ConditionalOnMissingBean
    PayloadDeserializer outboxPayloadDeserializer(ObjectProvider<JsonMapper> jsonMapper) {
        JsonMapper mapper = jsonMapper.getIfAvailable(() -> JsonMapper.builder().build());
        return (payload, type) -> mapper.readValue(payload, mapper.getTypeFactory().constructType(type));
    }

    /**
     * Every handler of the application: {@link HandlerRegistration} beans, {@code @OutboxHandler} methods of beans,
     * and the {@link OutboxRecordProcessor} beans for records addressed to no handler.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxHandlers outboxHandlers(ConfigurableListableBeanFactory beanFactory,
            ObjectProvider<HandlerRegistration<?>> registrations, ObjectProvider<OutboxRecordProcessor> processors,
            PayloadDeserializer deserializer, OutboxProperties properties) {
        List<OutboxRecordProcessor> recordProcessors = processors.orderedStream().toList();
        return OutboxHandlers.builder()
                .handlers(registrations.orderedStream().toList())
                .handlers(OutboxHandlerBeans.annotatedHandlers(beanFactory,
                        OutboxHandlerBeans.defaultRetryPolicy(beanFactory, properties.retry()::toPolicy)))
                .recordProcessor(recordProcessors.isEmpty() ? null : OutboxRecordProcessor.allOf(recordProcessors))
                .deserializer(deserializer)
                .build();
    }

    @Bean
    @ConditionalOnMissingBean
    Outbox outbox(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock,
            OutboxProperties properties) {
        return Outbox.builder().repository(repository).serializer(serializer).clock(clock)
                .maxPayloadBytes(properties.maxPayloadBytes()).build();
    }

    /** Not created when the application has its own; see {@link OutboxHandlerBeans#defaultRetryPolicy}. */
    @Bean(OutboxHandlerBeans.DEFAULT_POLICY_NAME)
    @ConditionalOnMissingBean
    OutboxRetryPolicy outboxRetryPolicy(OutboxProperties properties) {
        return properties.retry().toPolicy();
    }

    @Bean(destroyMethod = "close")
    @Conditional(OutboxHandlerBeans.OnHandlersCondition.class)
    @ConditionalOnMissingBean
    OutboxProcessor outboxProcessor(RecordStore store, OutboxHandlers handlers,
            ConfigurableListableBeanFactory beanFactory, ObjectProvider<ClusterCoordinator> coordinator,
            ObjectProvider<OutboxListener> listeners, ObjectProvider<OutboxObservation> observation, Clock clock,
            OutboxProperties properties, Environment environment) {
        // Without background processing there is no cluster membership: explicit passes cover every partition.
        ClusterCoordinator cluster = coordinator.getIfAvailable();
        PartitionOwnership ownership = cluster != null ? cluster : PartitionOwnership.allPartitions();
        OutboxProcessor.Builder builder = OutboxProcessor.builder();
        // spring.threads.virtual.enabled on Java 21+, as for Spring Boot's own executors.
        if (Threading.VIRTUAL.isActive(environment)) {
            builder.workerThreadFactory(new VirtualThreadTaskExecutor("outbox-worker-").getVirtualThreadFactory());
        }
        return builder
                .recordStore(store)
                .handler(handlers.asRecordProcessor())
                .retryPolicy(OutboxHandlerBeans.defaultRetryPolicy(beanFactory, properties.retry()::toPolicy))
                .ownership(ownership)
                .listener(OutboxListener.composite(listeners.orderedStream().toList()))
                .observation(observation.getIfAvailable(() -> OutboxObservation.NOOP))
                .clock(clock)
                .options(properties.toProcessingOptions())
                .build();
    }

    /** Cluster membership and partition ownership, for instances that process records in the background. */
    @Configuration(proxyBeanMethods = false)
    @Conditional(OutboxHandlerBeans.OnHandlersCondition.class)
    @ConditionalOnBooleanProperty(name = "outbox.processing.enabled", matchIfMissing = true)
    static class ClusterConfiguration {

        @Bean(destroyMethod = "close")
        OutboxHeartbeatConnection outboxHeartbeatConnection(DataSource dataSource, DatabaseDialect dialect) {
            return new OutboxHeartbeatConnection(dataSource, dialect);
        }

        @Bean
        @ConditionalOnMissingBean
        InstanceStore outboxInstanceStore(DataSource dataSource, DatabaseDialect dialect,
                ObjectProvider<OutboxSchemaInitialization> schema) {
            schema.ifAvailable(initialized -> { });
            return new JdbcInstanceStore(dataSource, dialect);
        }

        @Bean
        @ConditionalOnMissingBean
        PartitionStore outboxPartitionStore(DataSource dataSource, DatabaseDialect dialect,
                ObjectProvider<OutboxSchemaInitialization> schema) {
            schema.ifAvailable(initialized -> { });
            return new JdbcPartitionStore(dataSource, dialect);
        }

        @Bean
        @ConditionalOnMissingBean
        ClusterCoordinator outboxClusterCoordinator(InstanceStore instances, PartitionStore partitions,
                OutboxHeartbeatConnection heartbeats, OutboxInstanceIdentity identity, OutboxProperties properties,
                ObjectProvider<OutboxProcessor> processor, ObjectProvider<PartitionListener> partitionListeners) {
            OutboxProperties.Instance instance = properties.instance();
            return ClusterCoordinator.builder()
                    .instanceStore(instances)
                    .heartbeatStore(heartbeats.store())
                    .partitionStore(partitions)
                    .instanceId(identity.id())
                    .hostname(identity.hostname())
                    .port(identity.port())
                    .heartbeatInterval(Duration.ofSeconds(instance.heartbeatIntervalSeconds()))
                    .staleTimeout(Duration.ofSeconds(instance.staleInstanceTimeoutSeconds()))
                    .rebalanceInterval(Duration.ofSeconds(instance.newInstanceDetectionIntervalSeconds()))
                    .handling(partition -> {
                        OutboxProcessor engine = processor.getIfAvailable();
                        return engine != null && engine.isHandling(partition);
                    })
                    .partitionsGained(() -> processor.ifAvailable(OutboxProcessor::wakeUp))
                    .partitionListener(PartitionListener.composite(partitionListeners.orderedStream().toList()))
                    .build();
        }

        /** Each instance purges the partitions it owns; off with outbox.purge.enabled=false. */
        @Bean(destroyMethod = "close")
        @ConditionalOnMissingBean
        @ConditionalOnBooleanProperty(name = "outbox.purge.enabled", matchIfMissing = true)
        OutboxPurger outboxPurger(RecordStore store, DataSource dataSource, DatabaseDialect dialect,
                OutboxInstanceIdentity identity, ClusterCoordinator coordinator, Clock clock,
                OutboxProperties properties) {
            return properties.purge().toPurger(OutboxPurger.builder())
                    .store(storeSide(RecordPurge.class, store, dataSource, dialect, identity)).ownership(coordinator)
                    .clock(clock).build();
        }

        /** On PostgreSQL the lifecycle also runs the LISTEN/NOTIFY wake-ups, unless outbox.listen-notify=false. */
        @Bean
        OutboxProcessingLifecycle outboxProcessingLifecycle(OutboxProcessor processor,
                ClusterCoordinator coordinator, ObjectProvider<OutboxPurger> purger, DataSource dataSource,
                DatabaseDialect dialect, OutboxProperties properties) {
            PostgresNotifications notifications = properties.listenNotify() && dialect == DatabaseDialect.POSTGRESQL
                    ? new PostgresNotifications(dataSource, partition -> coordinator.ownedPartitions()
                            .contains(partition), processor::wakeUp)
                    : null;
            return new OutboxProcessingLifecycle(processor, coordinator, notifications, purger.getIfAvailable());
        }
    }
}
