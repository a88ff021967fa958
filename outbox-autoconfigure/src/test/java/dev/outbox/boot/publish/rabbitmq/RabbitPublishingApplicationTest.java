package dev.outbox.boot.publish.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.boot.publish.PublishingApplication;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.publish.OutboxMessageHeaders;
import dev.outbox.testkit.DeliveryCheck;
import dev.outbox.testkit.TestBrokers;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.amqp.core.BindingBuilder;
import org.springframework.amqp.core.Message;
import org.springframework.amqp.core.Queue;
import org.springframework.amqp.core.TopicExchange;
import org.springframework.amqp.rabbit.connection.CachingConnectionFactory;
import org.springframework.amqp.rabbit.core.RabbitAdmin;
import org.springframework.amqp.rabbit.core.RabbitTemplate;
import org.springframework.context.ConfigurableApplicationContext;

/**
 * A Spring Boot application on H2 with docs/publishing.md's {@code spring.rabbitmq.*} and {@code outbox.rabbitmq.*}
 * properties, against the local RabbitMQ: records written in a business transaction reach the queue bound to the
 * exchange with their routing keys and headers, once each and in order, and are completed; a rolled-back transaction
 * publishes nothing. Its exchange is renamed to one of this test's own.
 */
class RabbitPublishingApplicationTest extends DatabasePerTestClass {

    private URI uri;
    private CachingConnectionFactory adminConnection;
    private RabbitAdmin admin;
    private String exchange;
    private String queue;

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }

    @BeforeAll
    void declareExchangeAndQueue() {
        uri = URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672"));
        adminConnection = new CachingConnectionFactory(uri);
        admin = new RabbitAdmin(adminConnection);
        String unique = UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        exchange = "orders-" + unique;
        queue = "all-orders-" + unique;
        admin.declareExchange(new TopicExchange(exchange, false, true));
        admin.declareQueue(new Queue(queue, false));
        admin.declareBinding(BindingBuilder.bind(new Queue(queue)).to(new TopicExchange(exchange)).with("#"));
    }

    @AfterAll
    void deleteExchangeAndQueue() {
        if (admin != null) {
            try {
                admin.deleteQueue(queue);
                admin.deleteExchange(exchange);
            } finally {
                adminConnection.destroy();
            }
        }
    }

    @Test
    void theReadmesPropertiesPublishEveryCommittedRecordToItsExchangeAndRoutingKey() {
        List<String> overrides = new ArrayList<>(dataSourceProperties());
        overrides.addAll(List.of("spring.rabbitmq.host=" + uri.getHost(), "spring.rabbitmq.port=" + uri.getPort()));
        try (ConfigurableApplicationContext app = PublishingApplication.run(PublishingApplication.readmeProperties(
                "outbox.rabbitmq.enabled", value -> value.equals("orders") ? exchange : value, overrides))) {
            List<OutboxRecord> written = PublishingApplication.writeOrdersAndAwaitPublished(app);

            RabbitTemplate reader = new RabbitTemplate(adminConnection);
            List<Message> messages = new ArrayList<>();
            for (Message message = reader.receive(queue); message != null; message = reader.receive(queue)) {
                messages.add(message);
            }
            PublishingApplication.assertDeliveredOnceInOrder(written, messages.stream().map(message -> {
                Map<String, Object> headers = message.getMessageProperties().getHeaders();
                return new DeliveryCheck.Consumed((String) headers.get(OutboxMessageHeaders.RECORD_ID),
                        (String) headers.get(OutboxMessageHeaders.AGGREGATE_ID),
                        Long.parseLong((String) headers.get(OutboxMessageHeaders.SEQUENCE)));
            }).toList());
            assertThat(messages).filteredOn(message -> routingKey(message).equals("order.placed")).hasSize(100);
            assertThat(messages).filteredOn(message -> routingKey(message).equals("order.cancelled")).hasSize(1);
            assertThat(messages).filteredOn(message -> routingKey(message).equals("OrderShipped"))
                    .as("the default destination: the event type as routing key")
                    .singleElement().satisfies(message -> {
                        Map<String, Object> headers = message.getMessageProperties().getHeaders();
                        assertThat(headers).containsEntry("ce_source", "/order-service")
                                .containsEntry("ce_subject", "order-2");
                        assertThat(new String(message.getBody(), StandardCharsets.UTF_8))
                                .isEqualTo("{\"order\":2}");
                    });
        }
    }

    private static String routingKey(Message message) {
        return message.getMessageProperties().getReceivedRoutingKey();
    }
}
