package dev.outbox.example.publishing;

import dev.outbox.publish.OutboxMessageHeaders;
import java.nio.charset.StandardCharsets;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Declarables;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.annotation.RabbitListener;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Profile;

/**
 * The {@code rabbitmq} profile's exchange and queue (declared at startup, deleted by the broker when the application
 * disconnects) and its consumer. One queue for all of an order's messages keeps them in order.
 */
@Configuration(proxyBeanMethods = false)
@Profile("rabbitmq")
class RabbitConsumer {

    private final ReceivedMessages received;

    RabbitConsumer(ReceivedMessages received) {
        this.received = received;
    }

    @Bean
    Declarables ordersExchangeAndQueue(@Value("${example.name}") String name) {
        TopicExchange exchange = new TopicExchange(name, false, true);
        Queue queue = new Queue(name + "-example", false, false, true);
        return new Declarables(exchange, queue, BindingBuilder.bind(queue).to(exchange).with("order.*"));
    }

    @RabbitListener(queues = "${example.name}-example")
    void consume(Message message) {
        var headers = message.getMessageProperties().getHeaders();
        received.received(new ReceivedMessages.Message(message.getMessageProperties().getMessageId(),
                message.getMessageProperties().getType(), (String) headers.get(OutboxMessageHeaders.AGGREGATE_ID),
                Long.parseLong((String) headers.get(OutboxMessageHeaders.SEQUENCE)),
                new String(message.getBody(), StandardCharsets.UTF_8)));
    }
}
