package dev.outbox.example.publishing;

import dev.outbox.publish.OutboxMessageHeaders;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;
import org.springframework.kafka.annotation.KafkaListener;

/** The {@code kafka} profile's topic (created at startup by Spring Kafka) and its consumer. */
@Configuration(proxyBeanMethods = false)
@Profile("kafka")
class KafkaConsumer {

    private final ReceivedMessages received;

    KafkaConsumer(ReceivedMessages received) {
        this.received = received;
    }

    @Bean
    NewTopic ordersTopic(@Value("${example.name}") String topic) {
        return new NewTopic(topic, 3, (short) 1);
    }

    @KafkaListener(topics = "${example.name}")
    void consume(ConsumerRecord<String, String> message) {
        received.received(new ReceivedMessages.Message(header(message, OutboxMessageHeaders.RECORD_ID),
                header(message, OutboxMessageHeaders.EVENT_TYPE), message.key(),
                Long.parseLong(header(message, OutboxMessageHeaders.SEQUENCE)),
                message.value()));
    }

    private static String header(ConsumerRecord<String, String> message, String name) {
        return new String(message.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
