package dev.outbox.example.publishing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testkit.TestBrokers;
import io.nats.client.Connection;
import io.nats.client.Nats;
import java.net.URI;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example as its README command runs it, once per broker profile (Kafka in the example's own JVM; RabbitMQ and
 * NATS the local servers, see {@link TestBrokers}), with destination names of this test's own: every order's messages
 * arrive, in order, each with the outbox headers.
 */
class PublishingExampleTest {

    @Test
    void kafka() {
        runAndCheck("kafka", List.of());
    }

    @Test
    void rabbitmq() {
        URI rabbit = URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672"));
        runAndCheck("rabbitmq", List.of("--spring.rabbitmq.host=" + rabbit.getHost(),
                "--spring.rabbitmq.port=" + rabbit.getPort()));
    }

    @Test
    void nats() throws Exception {
        String url = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        String stream = runAndCheck("nats", List.of("--outbox.nats.url=" + url));
        try (Connection connection = Nats.connect(url)) {
            // a second run on the stream the first one filled (JetStream keeps it): it counts its own messages only
            runAndCheck("nats", stream, "run-2", List.of("--outbox.nats.url=" + url));
        } finally {
            try (Connection connection = Nats.connect(url)) {
                connection.jetStreamManagement().deleteStream(stream);
            }
        }
    }

    /** Runs the example with {@code profile}; returns the destination name it used. */
    private static String runAndCheck(String profile, List<String> arguments) {
        String name = "orders-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        runAndCheck(profile, name, "run-1", arguments);
        return name;
    }

    /**
     * Runs the example with {@code profile} on the destination {@code name}, with a database of its own: every message
     * it receives is one of the records of this run.
     */
    private static void runAndCheck(String profile, String name, String run, List<String> arguments) {
        List<String> args = new ArrayList<>(List.of("--spring.profiles.active=" + profile, "--example.name=" + name,
                "--spring.datasource.url=jdbc:h2:mem:" + name + "-" + run + ";DB_CLOSE_DELAY=-1"));
        args.addAll(arguments);
        SpringApplication application = new SpringApplication(PublishingExampleApplication.class);
        application.addListeners(new InJvmKafka());
        try (ConfigurableApplicationContext app = application.run(args.toArray(String[]::new))) {
            List<ReceivedMessages.Message> messages = app.getBean(ReceivedMessages.class).messages();
            assertThat(messages).as("5 placed, 3 shipped").hasSize(8);
            assertThat(messages).extracting(ReceivedMessages.Message::recordId).as("the records of this run")
                    .containsExactlyInAnyOrderElementsOf(app.getBean(JdbcTemplate.class)
                            .queryForList("SELECT id FROM outbox_record", String.class));
            Map<String, List<ReceivedMessages.Message>> byOrder = messages.stream()
                    .collect(Collectors.groupingBy(ReceivedMessages.Message::orderId));
            assertThat(byOrder).hasSize(5).allSatisfy((order, ofOrder) -> {
                assertThat(ofOrder).as(order).isSortedAccordingTo(
                        Comparator.comparingLong(ReceivedMessages.Message::sequence));
                assertThat(ofOrder.get(0).eventType()).isEqualTo("OrderPlaced");
            });
            assertThat(byOrder.get("order-1")).extracting(ReceivedMessages.Message::eventType)
                    .containsExactly("OrderPlaced", "OrderShipped");
            assertThat(byOrder.get("order-1").get(0).payload()).contains("\"amountCents\":1000");
        }
    }
}
