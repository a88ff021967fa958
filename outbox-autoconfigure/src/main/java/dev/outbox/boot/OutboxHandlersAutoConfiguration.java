package dev.outbox.boot;

import dev.outbox.OutboxRecordProcessor;
import dev.outbox.PayloadDeserializer;
import dev.outbox.PayloadSerializer;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import java.util.List;
import javax.sql.DataSource;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import tools.jackson.databind.json.JsonMapper;

/**
 * The application's handlers and how payloads are written and read: needed by the write path too, since a record is
 * addressed to the handlers subscribed to its event type when it is written.
 */
@AutoConfiguration(after = OutboxStoreAutoConfiguration.class,
        afterName = "org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration")
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
public class OutboxHandlersAutoConfiguration {

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

    /** {@code outbox.retry.*}; not created when the application has its own policy. */
    @Bean(OutboxHandlerBeans.DEFAULT_POLICY_NAME)
    @ConditionalOnMissingBean
    OutboxRetryPolicy outboxRetryPolicy(OutboxProperties properties) {
        return properties.retry().toPolicy();
    }

    /** The handler methods among the bean definitions, scanned once, and the default retry policy. */
    @Bean
    OutboxHandlerBeans outboxHandlerBeans(ConfigurableListableBeanFactory beanFactory, OutboxProperties properties) {
        return new OutboxHandlerBeans(beanFactory, properties.retry());
    }

    /**
     * Every handler of the application: {@link HandlerRegistration} beans, {@code @OutboxHandler} methods of beans,
     * {@link PublisherRegistration} beans (the broker publishers' auto-configurations define them), and the
     * {@link OutboxRecordProcessor} beans for records addressed to no handler.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxHandlers outboxHandlers(OutboxHandlerBeans handlerBeans,
            ObjectProvider<HandlerRegistration<?>> registrations, ObjectProvider<PublisherRegistration> publishers,
            ObjectProvider<OutboxRecordProcessor> processors, PayloadDeserializer deserializer) {
        List<OutboxRecordProcessor> recordProcessors = processors.orderedStream().toList();
        return OutboxHandlers.builder()
                .handlers(registrations.orderedStream().toList())
                .handlers(handlerBeans.registrations())
                .publishers(publishers.orderedStream().toList())
                .recordProcessor(recordProcessors.isEmpty() ? null : OutboxRecordProcessor.allOf(recordProcessors))
                .deserializer(deserializer)
                .build();
    }
}
