package dev.outbox.boot.publish.kafka;

import java.util.Map;

/**
 * What the outbox's producer and topic lookup start from: Spring Boot's {@code spring.kafka.*} where the application
 * has Spring Kafka, else {@code outbox.kafka.bootstrap-servers}.
 *
 * @param producer the producer settings
 * @param admin the admin client settings
 */
public record KafkaClientSettings(Map<String, Object> producer, Map<String, Object> admin) {

    public KafkaClientSettings {
        producer = Map.copyOf(producer);
        admin = Map.copyOf(admin);
    }
}
