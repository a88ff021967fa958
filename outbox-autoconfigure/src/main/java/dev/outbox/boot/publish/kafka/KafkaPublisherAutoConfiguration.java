package dev.outbox.boot.publish.kafka;

import dev.outbox.boot.OutboxHandlersAutoConfiguration;
import dev.outbox.boot.publish.PublisherSettings;
import dev.outbox.kafka.KafkaOutboxPublisher;
import dev.outbox.events.EventMappings;
import dev.outbox.kafka.KafkaTopicRouter;
import dev.outbox.kafka.OutboxKafkaProducers;
import dev.outbox.publish.OutboxRouter;
import dev.outbox.publish.PublisherRegistration;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.Producer;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.kafka.autoconfigure.KafkaProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The Kafka publisher, registered as a handler, when {@code outbox-kafka} is on the class path and
 * {@code outbox.kafka.enabled=true}. Its producer and admin client (to tell a missing topic from a slow cluster) are
 * its own, closed with the context, configured from {@code spring.kafka.*} where the application has Spring Kafka.
 * Each bean backs off when the application defines its own: the {@link KafkaTopicRouter} (instead of
 * {@code outbox.kafka.routes}), the producer ({@code outboxKafkaProducer}), the admin client
 * ({@code outboxKafkaAdmin}), the {@link KafkaOutboxPublisher}, or the registration
 * ({@code kafkaPublisherRegistration}).
 */
@AutoConfiguration(before = OutboxHandlersAutoConfiguration.class,
        afterName = "org.springframework.boot.kafka.autoconfigure.KafkaAutoConfiguration")
@ConditionalOnClass({KafkaOutboxPublisher.class, Producer.class})
@ConditionalOnBooleanProperty("outbox.kafka.enabled")
@EnableConfigurationProperties(KafkaPublisherProperties.class)
public class KafkaPublisherAutoConfiguration {

    private static final String PREFIX = "outbox.kafka";

    /** Spring Boot's {@code spring.kafka.*}, where the application has Spring Kafka. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.boot.kafka.autoconfigure.KafkaProperties")
    @ConditionalOnBean(KafkaProperties.class)
    static class FromSpringKafka {

        @Bean
        @ConditionalOnMissingBean
        KafkaClientSettings outboxKafkaClientSettings(KafkaProperties kafka, KafkaPublisherProperties properties) {
            return new KafkaClientSettings(withOverrides(kafka.buildProducerProperties(), properties.producer()),
                    kafka.buildAdminProperties());
        }
    }

    @Bean
    @ConditionalOnMissingBean
    KafkaClientSettings outboxKafkaClientSettings(KafkaPublisherProperties properties) {
        Map<String, Object> cluster = Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG,
                String.join(",", properties.bootstrapServers()));
        return new KafkaClientSettings(withOverrides(cluster, properties.producer()), cluster);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "outboxKafkaProducer")
    Producer<String, byte[]> outboxKafkaProducer(KafkaClientSettings settings) {
        return OutboxKafkaProducers.create(settings.producer());
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(name = "outboxKafkaAdmin")
    Admin outboxKafkaAdmin(KafkaClientSettings settings) {
        return Admin.create(settings.admin());
    }

    @Bean
    @ConditionalOnMissingBean
    KafkaOutboxPublisher kafkaOutboxPublisher(@Qualifier("outboxKafkaProducer") Producer<String, byte[]> producer,
            @Qualifier("outboxKafkaAdmin") Admin admin, KafkaPublisherProperties properties,
            ObjectProvider<KafkaTopicRouter> router, ObjectProvider<EventMappings> events) {
        OutboxRouter<String> topics = PublisherSettings.routing(PREFIX, "Kafka topic", router.getIfAvailable(),
                properties.routes(), properties.defaultTopic(), "default-topic", events.getIfAvailable(),
                (target, record) -> target);
        return KafkaOutboxPublisher.builder(producer)
                .router(topics)
                .topicLookup(admin)
                .headers(PublisherSettings.headers(properties.contentType(), properties.cloudEvents()))
                .acknowledgementTimeout(properties.acknowledgementTimeout())
                .build();
    }

    @Bean
    @ConditionalOnMissingBean(name = "kafkaPublisherRegistration")
    PublisherRegistration kafkaPublisherRegistration(KafkaOutboxPublisher publisher,
            KafkaPublisherProperties properties) {
        return PublisherSettings.registration(properties.handlerId(), publisher, properties.eventTypes());
    }

    private static Map<String, Object> withOverrides(Map<String, Object> settings, Map<String, String> overrides) {
        Map<String, Object> merged = new HashMap<>(settings);
        merged.putAll(overrides);
        return merged;
    }
}
