package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadSerializer;
import dev.outbox.context.RecordContexts;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jpa.JdbcOutboxStores;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jpa.OutboxRecordEntity;
import dev.outbox.jpa.OutboxTableSchemaFilter;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordContext;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import javax.sql.DataSource;
import org.hibernate.cfg.SchemaToolingSettings;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.hibernate.autoconfigure.HibernatePropertiesCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The write path on JPA: {@link OutboxRecordRepository} joins the application's transaction through its entity
 * manager, and {@link Outbox} serializes events into it. Needs no processing bean: a JVM that only writes has this and
 * the stores.
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxHandlersAutoConfiguration.class},
        afterName = "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration")
@ConditionalOnClass(EntityManagerFactory.class)
@ConditionalOnBean({DataSource.class, EntityManagerFactory.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
@AutoConfigurationPackage(basePackageClasses = OutboxRecordEntity.class)
public class OutboxWriteAutoConfiguration {

    /**
     * Saves records in the application's transaction, one per subscribed handler; at commit the other instances are
     * notified where the database can, and this JVM's processor is woken.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxRecordRepository outboxRecordRepository(EntityManagerFactory entityManagerFactory,
            PlatformTransactionManager transactionManager, JdbcOutboxStores stores, LocalWakeUps wakeUps,
            OutboxHandlers handlers, ObjectProvider<OutboxObservation> observation,
            ObjectProvider<RecordContext> contexts, OutboxProperties properties) {
        // captured once per record, before the fan-out copies it for each handler
        return RecordContexts.capturing(handlers.fanningOut(JpaOutboxRecordRepository.create(entityManagerFactory,
                transactionManager, properties.maxPayloadBytes(), stores.commitHooks(wakeUps),
                observation.getIfAvailable(() -> OutboxObservation.NOOP))),
                properties.context().with(contexts.orderedStream().toList()));
    }

    /**
     * The outbox table belongs to the outbox changelog: Hibernate's {@code ddl-auto} (Spring Boot's default on an
     * embedded database is {@code create-drop}) must neither re-create nor drop it. An application's own
     * {@code hibernate.hbm2ddl.schema_filter_provider} wins.
     */
    @Bean
    HibernatePropertiesCustomizer outboxTableSchemaFilter() {
        return properties -> properties.putIfAbsent(SchemaToolingSettings.HBM2DDL_FILTER_PROVIDER,
                new OutboxTableSchemaFilter());
    }

    @Bean
    @ConditionalOnMissingBean
    Outbox outbox(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock,
            OutboxProperties properties) {
        return Outbox.builder().repository(repository).serializer(serializer).clock(clock)
                .maxPayloadBytes(properties.maxPayloadBytes()).build();
    }
}
