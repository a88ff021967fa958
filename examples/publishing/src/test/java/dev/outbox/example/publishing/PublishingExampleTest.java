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
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;
import org.springframework.boot.SpringApplication;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The example as its README command runs it, once per broker profile (Kafka in the example's own JVM; RabbitMQ and
 * NATS the local servers, see {@link TestBrokers}), with destination names of this test's own: every order's messages
 * arrive, in order, each with the outbox headers, and a run logs no WARN or ERROR line, its stop included. A second
 * run on the same destination receives its own messages only. Without a broker profile the example says which to
 * pass and ends, without a stack trace.
 */
@ExtendWith(OutputCaptureExtension.class)
class PublishingExampleTest {

    private static final Pattern WARN_OR_ERROR = Pattern.compile("\\b(WARN|ERROR)\\b");
    /**
     * Logback's own status line when an event comes while the next run sets logging up anew: from the threads of the
     * broker kafkaTwiceOnOneBroker keeps between its two runs (its raft leader, say), not from the example.
     */
    private static final Pattern SHARED_BROKER_BETWEEN_RUNS = Pattern.compile(
            "\\|-WARN in Logger\\[org\\.apache\\.kafka\\.[^\\]]*\\] - No appenders present in context");
    private static final Duration PROCESS_DEADLINE = Duration.ofMinutes(3);

    @Test
    void kafka(CapturedOutput output) {
        runAndCheck("kafka", List.of(), output);
    }

    @Test
    void kafkaTwiceOnOneBroker(CapturedOutput output) {
        // a Kafka of its own, as spring.kafka.bootstrap-servers names one: the topic keeps the first run's messages
        EmbeddedKafkaKraftBroker broker = new EmbeddedKafkaKraftBroker(1, 3);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        try {
            List<String> arguments = List.of("--spring.kafka.bootstrap-servers=" + broker.getBrokersAsString());
            String topic = runAndCheck("kafka", arguments, output);
            runAndCheck("kafka", topic, "run-2", arguments, output);
        } finally {
            broker.destroy();
        }
    }

    @Test
    void rabbitmq(CapturedOutput output) {
        URI rabbit = URI.create(TestBrokers.require("RABBITMQ", "amqp://guest:guest@127.0.0.1:5672"));
        List<String> arguments = List.of("--spring.rabbitmq.host=" + rabbit.getHost(),
                "--spring.rabbitmq.port=" + rabbit.getPort());
        String name = runAndCheck("rabbitmq", arguments, output);
        // the queue and the exchange went with the first run's connection: the second declares them anew
        runAndCheck("rabbitmq", name, "run-2", arguments, output);
    }

    @Test
    void nats(CapturedOutput output) throws Exception {
        String url = TestBrokers.require("NATS", "nats://127.0.0.1:4222");
        String stream = runAndCheck("nats", List.of("--outbox.nats.url=" + url), output);
        try (Connection connection = Nats.connect(url)) {
            // a second run on the stream the first one filled (JetStream keeps it): it counts its own messages only
            runAndCheck("nats", stream, "run-2", List.of("--outbox.nats.url=" + url), output);
        } finally {
            try (Connection connection = Nats.connect(url)) {
                connection.jetStreamManagement().deleteStream(stream);
            }
        }
    }

    /** As a new user runs it first: {@code java} on the example's main class without a profile. */
    @Test
    void withoutABrokerProfileSaysWhichToPassAndEnds() throws Exception {
        Path log = Files.createTempFile("publishing-example", ".log");
        try {
            Process example = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-cp", System.getProperty("java.class.path"), PublishingExampleApplication.class.getName())
                    .redirectErrorStream(true).redirectOutput(log.toFile()).start();
            if (!example.waitFor(PROCESS_DEADLINE.toSeconds(), TimeUnit.SECONDS)) {
                example.destroyForcibly();
                throw new AssertionError("the example did not end within " + PROCESS_DEADLINE);
            }
            String printed = Files.readString(log);
            assertThat(example.exitValue()).as(printed).isNotZero();
            assertThat(printed).contains("needs exactly one broker profile of kafka, rabbitmq or nats; active "
                    + "profiles: none.", "-Dspring-boot.run.profiles=kafka", "--spring.profiles.active=kafka");
            assertThat(printed.lines()).as("no stack trace").noneMatch(line -> line.startsWith("\tat ")
                    || line.contains("Exception"));
        } finally {
            Files.delete(log);
        }
    }

    /** Runs the example with {@code profile}; returns the destination name it used. */
    private static String runAndCheck(String profile, List<String> arguments, CapturedOutput output) {
        String name = "orders-" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        runAndCheck(profile, name, "run-1", arguments, output);
        return name;
    }

    /**
     * Runs the example with {@code profile} on the destination {@code name}, with a database of its own: every message
     * it receives is one of the records of this run, and what it logs from start to stop has no WARN or ERROR line.
     */
    private static void runAndCheck(String profile, String name, String run, List<String> arguments,
            CapturedOutput output) {
        int start = output.getAll().length();
        List<String> args = new ArrayList<>(List.of("--spring.profiles.active=" + profile, "--example.name=" + name,
                "--spring.datasource.url=jdbc:h2:mem:" + name + "-" + run + ";DB_CLOSE_DELAY=-1"));
        args.addAll(arguments);
        SpringApplication application = new SpringApplication(PublishingExampleApplication.class);
        // as the example's main method: the in-JVM broker, if any, stops after the context has closed
        try (InJvmKafka kafka = new InJvmKafka()) {
            application.addListeners(kafka);
            try (ConfigurableApplicationContext app = application.run(args.toArray(String[]::new))) {
                checkMessages(app, profile);
            }
        }
        String ofThisRun = output.getAll().substring(start);
        assertThat(ofThisRun).contains("All 8 messages received from " + profile);
        assertThat(ofThisRun.lines()).as(run + " of " + profile + " logs no WARN or ERROR line")
                .noneMatch(line -> WARN_OR_ERROR.matcher(line).find()
                        && !SHARED_BROKER_BETWEEN_RUNS.matcher(line).find());
    }

    private static void checkMessages(ConfigurableApplicationContext app, String profile) {
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
        if (profile.equals("nats")) {
            assertThat(app.getBean(ReceivedMessages.class).ofEarlierRuns())
                    .as("the NATS consumer starts at the messages stored from its start on").isZero();
        }
    }
}

