package dev.outbox.boot;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.PayloadSerializer;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jpa.JpaOutboxRecordRepository;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordContext;
import jakarta.persistence.EntityManagerFactory;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.NoneNestedConditions;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The write path: {@link OutboxRecordRepository} joins the application's transaction, and {@link Outbox} serializes
 * events into it. On JPA (an {@code EntityManagerFactory} bean, as {@code outbox-starter-jpa} brings) the records go
 * through the entity manager's connection; without JPA ({@code outbox-starter-jdbc}) through the connection of the
 * Spring-managed transaction of the {@code DataSource}. Either way they are inserted as one batch just before the
 * commit. Needs no processing bean: a JVM that only writes has this and the stores.
 */
@AutoConfiguration(after = {OutboxStoreAutoConfiguration.class, OutboxHandlersAutoConfiguration.class},
        afterName = {"org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
            "org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration"})
@ConditionalOnBean({DataSource.class, PlatformTransactionManager.class})
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxWriteAutoConfiguration {

    private static final String JPA_WRITE_PATH = "dev.outbox.jpa.JpaOutboxRecordRepository";

    @Bean
    @ConditionalOnMissingBean
    Outbox outbox(OutboxRecordRepository repository, PayloadSerializer serializer, Clock clock,
            OutboxProperties properties) {
        return OutboxAssembly.writer(repository, serializer, clock, properties);
    }

    /**
     * Saves records in the application's transaction, one per subscribed handler, with the writer's context captured
     * once per record before the fan-out copies it for each handler; at commit the other instances are notified where
     * the database can, and this JVM's processor is woken.
     */
    private static OutboxRecordRepository fannedOut(OutboxRecordRepository repository, OutboxHandlers handlers,
            ObjectProvider<RecordContext> contexts, OutboxProperties properties) {
        return OutboxAssembly.fannedOut(repository, handlers, contexts.orderedStream().toList(), properties);
    }


    /**
     * On JPA with outbox-jpa: on the connection of the entity manager's transaction (the outbox maps no entity).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"jakarta.persistence.EntityManagerFactory", JPA_WRITE_PATH})
    @ConditionalOnBean(type = "jakarta.persistence.EntityManagerFactory")
    static class JpaWritePath {

        @Bean
        @ConditionalOnMissingBean
        OutboxRecordRepository outboxRecordRepository(EntityManagerFactory entityManagerFactory,
                PlatformTransactionManager transactionManager, JdbcOutboxStores stores, LocalWakeUps wakeUps,
                OutboxHandlers handlers, ObjectProvider<OutboxObservation> observation,
                ObjectProvider<RecordContext> contexts, OutboxProperties properties) {
            return fannedOut(JpaOutboxRecordRepository.create(entityManagerFactory, transactionManager,
                    stores.statements(), properties.maxPayloadBytes(), stores.commitHooks(wakeUps),
                    observation.getIfAvailable(() -> OutboxObservation.NOOP)), handlers, contexts, properties);
        }
    }

    /**
     * Without JPA, or without outbox-jpa: on the connection of the transaction of the {@code DataSource}, which
     * {@code JpaTransactionManager} binds as well.
     */
    @Configuration(proxyBeanMethods = false)
    @Conditional(WithoutJpaWritePath.class)
    static class JdbcWritePath {

        @Bean
        @ConditionalOnMissingBean
        OutboxRecordRepository outboxRecordRepository(DataSource dataSource,
                PlatformTransactionManager transactionManager, JdbcOutboxStores stores, LocalWakeUps wakeUps,
                OutboxHandlers handlers, ObjectProvider<OutboxObservation> observation,
                ObjectProvider<RecordContext> contexts, OutboxProperties properties) {
            return OutboxAssembly.jdbcRepository(dataSource, transactionManager, stores, wakeUps, handlers,
                    observation.getIfAvailable(() -> OutboxObservation.NOOP), contexts.orderedStream().toList(),
                    properties);
        }
    }

    /** No {@code EntityManagerFactory} bean, or no outbox-jpa to write through it. */
    static final class WithoutJpaWritePath extends NoneNestedConditions {

        WithoutJpaWritePath() {
            super(ConfigurationPhase.REGISTER_BEAN);
        }

        @ConditionalOnClass(name = {"jakarta.persistence.EntityManagerFactory", JPA_WRITE_PATH})
        @ConditionalOnBean(type = "jakarta.persistence.EntityManagerFactory")
        static final class JpaWritePathApplies {
        }
    }
}
