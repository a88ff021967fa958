package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadSerializer;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.jdbc.OutboxSchemaInitializer;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.node.OutboxNode;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.RecordContext;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.core.env.Environment;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Makes the outboxes of {@code outbox.outboxes.<name>} from their settings and what the application shares among its
 * outboxes (handlers, serializer, listeners, clock, identity): per outbox the same parts as the default outbox's beans,
 * on its own DataSource and tables.
 */
final class NamedOutboxFactory {

    private static final Logger log = LoggerFactory.getLogger(NamedOutboxFactory.class);

    private final ListableBeanFactory beans;
    private final OutboxProperties properties;
    private final OutboxHandlers handlers;
    private final OutboxHandlerBeans handlerBeans;
    private final PayloadSerializer serializer;
    private final List<OutboxListener> listeners;
    private final List<PartitionListener> partitionListeners;
    private final OutboxObservation observation;
    private final List<RecordContext> contexts;
    private final @Nullable OutboxMeters meters;
    private final OutboxInstanceIdentity identity;
    private final Clock clock;
    private final Environment environment;

    NamedOutboxFactory(ListableBeanFactory beans, OutboxProperties properties, OutboxHandlers handlers,
            OutboxHandlerBeans handlerBeans, PayloadSerializer serializer, List<OutboxListener> listeners,
            List<PartitionListener> partitionListeners, OutboxObservation observation, List<RecordContext> contexts,
            @Nullable OutboxMeters meters, OutboxInstanceIdentity identity, Clock clock, Environment environment) {
        this.beans = beans;
        this.properties = properties;
        this.handlers = handlers;
        this.handlerBeans = handlerBeans;
        this.serializer = serializer;
        // the default outbox's meters are its own; each outbox gets its own below
        this.listeners = listeners.stream().filter(listener -> meters == null || !meters.isMeterListener(listener))
                .toList();
        this.partitionListeners = partitionListeners.stream()
                .filter(listener -> meters == null || !meters.isMeterListener(listener)).toList();
        this.observation = observation;
        this.contexts = contexts;
        this.meters = meters;
        this.identity = identity;
        this.clock = clock;
        this.environment = environment;
    }

    /**
     * The outboxes of {@code outbox.outboxes}, made in order once {@code check} has passed every outbox's settings
     * (before any of them creates its tables). When one cannot be made, those made before it are closed.
     */
    NamedOutboxes create(OutboxSettingsCheck check) {
        check.run();
        List<NamedOutbox> made = new ArrayList<>();
        try {
            properties.outboxes().forEach((name, settings) -> made.add(create(name, settings, check.dataSource(name))));
        } catch (RuntimeException e) {
            made.forEach(outbox -> {
                try {
                    outbox.close();
                } catch (RuntimeException closing) {
                    e.addSuppressed(closing);
                }
            });
            throw e;
        }
        return new NamedOutboxes(made);
    }

    private NamedOutbox create(String name, OutboxProperties.Named settings, DataSource dataSource) {
        OutboxTables tables = settings.tables(name);
        OutboxHandlers outboxHandlers = handlers(name, settings);
        PlatformTransactionManager transactionManager = transactionManager(settings, dataSource);
        if (settings.schemaInitialization().enabled()) {
            OutboxSchemaInitializer.apply(dataSource, tables);
        }
        SqlStatements sql = DatabaseDialect.detect(dataSource, tables);
        JdbcOutboxStores stores = JdbcOutboxStores.create(dataSource, sql, settings.listenNotify());
        try {
            LocalWakeUps wakeUps = new LocalWakeUps();
            OutboxRecordRepository repository = OutboxAssembly.jdbcRepository(dataSource,
                    transactionManager, stores, wakeUps, outboxHandlers, observation, contexts, properties);
            Outbox outbox = OutboxAssembly.writer(repository, serializer, clock, properties);
            boolean processes = !outboxHandlers.handlerIds().isEmpty()
                    || outboxHandlers.capabilities().recordProcessor();
            boolean background = processes && properties.processing().enabled();
            OutboxNode node = background ? node(name, stores, transactionManager, wakeUps, outboxHandlers) : null;
            OutboxProcessor onDemand = processes && !background
                    ? processor(name, stores, transactionManager, outboxHandlers).build() : null;
            ClusterCoordinator cluster = node == null ? null : node.coordinator().orElseThrow();
            OutboxMonitor monitor = OutboxAssembly.monitor(stores.records(), outboxHandlers, cluster,
                    stores.instances(), stores.partitions(), clock, properties);
            if (meters != null) {
                meters.bindGauges(name, monitor);
            }
            OutboxAdmin admin = OutboxAssembly.admin(stores.records(), wakeUps, clock);
            log.info("Outbox '{}': {} on DataSource '{}', handlers {}, {}", name, sql.recordTable(),
                    settings.dataSource(), new TreeSet<>(outboxHandlers.handlerIds()), background
                            ? "processed in the background" : processes ? "processed when called" : "written only");
            return new NamedOutbox(name, outbox, repository, monitor, admin, stores, node, onDemand);
        } catch (RuntimeException e) {
            stores.close();
            throw e;
        }
    }

    /** As for the default outbox: a node when processing runs in the background. */
    private OutboxNode node(String name, JdbcOutboxStores stores, PlatformTransactionManager transactionManager,
            LocalWakeUps wakeUps, OutboxHandlers outboxHandlers) {
        List<PartitionListener> outboxPartitionListeners = new ArrayList<>(partitionListeners);
        if (meters != null) {
            outboxPartitionListeners.add(meters.partitionListener(name));
        }
        return OutboxAssembly.node(processor(name, stores, transactionManager, outboxHandlers), stores,
                stores.records(), stores.instances(), stores.partitions(), wakeUps, identity, outboxHandlers,
                PartitionListener.composite(outboxPartitionListeners), clock, properties);
    }

    /** Transactional handlers run in transactions of the outbox's own transaction manager, on its DataSource. */
    private OutboxProcessor.Builder processor(String name, JdbcOutboxStores stores,
            PlatformTransactionManager transactionManager, OutboxHandlers outboxHandlers) {
        List<OutboxListener> outboxListeners = new ArrayList<>(listeners);
        if (meters != null) {
            outboxListeners.add(meters.listener(name));
        }
        return OutboxAssembly.processor(stores.records(),
                stores.recordTransactions(transactionManager, OutboxAssembly.idleLimit(properties)),
                outboxHandlers, handlerBeans, outboxListeners, observation, contexts, clock, properties, environment);
    }

    private OutboxHandlers handlers(String name, OutboxProperties.Named settings) {
        if (settings.handlers().isEmpty()) {
            return handlers;
        }
        try {
            return handlers.only(settings.handlers());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("outbox.outboxes." + name + ".handlers: " + e.getMessage(), e);
        }
    }

    private PlatformTransactionManager transactionManager(OutboxProperties.Named settings, DataSource dataSource) {
        String bean = settings.transactionManager();
        if (bean == null || bean.isBlank()) {
            return new DataSourceTransactionManager(dataSource);
        }
        // checked by OutboxSettingsCheck; taken only now, since a JPA one waits for the database initialization
        return beans.getBean(bean, PlatformTransactionManager.class);
    }
}
