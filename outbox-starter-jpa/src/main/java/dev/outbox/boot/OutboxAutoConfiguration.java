package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadSerializer;
import dev.outbox.jpa.JdbcRecordStore;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jpa.OutboxRecordEntity;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurationPackage;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
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
            PlatformTransactionManager transactionManager, OutboxProperties properties,
            ObjectProvider<OutboxSchemaInitialization> schema, ObjectProvider<OutboxProcessor> processor) {
        schema.ifAvailable(initialized -> { });
        return JpaOutboxRecordRepository.create(entityManagerFactory, transactionManager,
                properties.maxPayloadBytes(), () -> processor.ifAvailable(OutboxProcessor::wakeUp));
    }

    @Bean
    @ConditionalOnMissingBean
    RecordStore outboxRecordStore(DataSource dataSource, DatabaseDialect dialect,
            ObjectProvider<OutboxSchemaInitialization> schema) {
        schema.ifAvailable(initialized -> { });
        return new JdbcRecordStore(dataSource, dialect);
    }

    @Bean
    @ConditionalOnMissingBean
    PayloadSerializer outboxPayloadSerializer(ObjectProvider<JsonMapper> jsonMapper) {
        JsonMapper mapper = jsonMapper.getIfAvailable(() -> JsonMapper.builder().build());
        return mapper::writeValueAsString;
    }

    @Bean
    @ConditionalOnMissingBean
    Outbox outbox(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock,
            OutboxProperties properties) {
        return Outbox.builder().repository(repository).serializer(serializer).clock(clock)
                .maxPayloadBytes(properties.maxPayloadBytes()).build();
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxRetryPolicy outboxRetryPolicy(OutboxProperties properties) {
        return properties.retry().toPolicy();
    }

    @Bean
    @ConditionalOnMissingBean
    PartitionOwnership outboxPartitionOwnership() {
        return PartitionOwnership.allPartitions();
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnBean(OutboxRecordProcessor.class)
    @ConditionalOnMissingBean
    OutboxProcessor outboxProcessor(RecordStore store, ObjectProvider<OutboxRecordProcessor> processors,
            OutboxRetryPolicy retryPolicy, PartitionOwnership ownership, ObjectProvider<OutboxListener> listeners,
            Clock clock, OutboxProperties properties) {
        return OutboxProcessor.builder()
                .recordStore(store)
                .handler(OutboxRecordProcessor.allOf(processors.orderedStream().toList()))
                .retryPolicy(retryPolicy)
                .ownership(ownership)
                .listener(OutboxListener.composite(listeners.orderedStream().toList()))
                .clock(clock)
                .options(properties.toProcessingOptions())
                .build();
    }

    @Bean
    @ConditionalOnBean(OutboxProcessor.class)
    @ConditionalOnBooleanProperty(name = "outbox.processing.enabled", matchIfMissing = true)
    OutboxProcessingLifecycle outboxProcessingLifecycle(OutboxProcessor processor) {
        return new OutboxProcessingLifecycle(processor);
    }
}
