package dev.outbox.example.publishing;

import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.logging.LogLevel;
import org.springframework.boot.logging.LoggingSystem;
import org.springframework.context.ApplicationListener;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * With the {@code kafka} profile and no {@code spring.kafka.bootstrap-servers}, starts a single-node Kafka broker in
 * this JVM (Spring Kafka's test broker) before the application reads its settings: the example runs where no Kafka is
 * installed. {@link #close()} stops it; call it once the application context is closed, so that the listener
 * container, the outbox's producer and the admin client disconnect from a running broker (stopped first, each of them
 * logged WARN lines about the lost node while closing).
 */
final class InJvmKafka implements ApplicationListener<ApplicationEnvironmentPreparedEvent>, AutoCloseable {

    /** The broker's metadata controller: only the in-JVM broker logs through it. */
    private static final String CONTROLLER_LOGGER = "org.apache.kafka.controller.QuorumController";
    /** The network client of every Kafka client: the application's as well as the broker's own. */
    private static final String NETWORK_CLIENT_LOGGER = "org.apache.kafka.clients.NetworkClient";

    private @Nullable EmbeddedKafkaKraftBroker broker;

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        start(event.getEnvironment());
    }

    /** Stops the broker, if one was started; does nothing otherwise. */
    @Override
    public void close() {
        EmbeddedKafkaKraftBroker running = broker;
        if (running == null) {
            return;
        }
        broker = null;
        // Stopping, the broker closes its channel to the controller twice, and the second close logs a WARN
        // ("Attempting to close NetworkClient that has already been closed"): nothing a user can act on. The
        // application's clients are closed by now, so only the broker's own are quieted, and only while it stops.
        LoggingSystem logging = LoggingSystem.get(InJvmKafka.class.getClassLoader());
        logging.setLogLevel(NETWORK_CLIENT_LOGGER, LogLevel.ERROR);
        try {
            running.destroy();
        } finally {
            logging.setLogLevel(NETWORK_CLIENT_LOGGER, null);
        }
    }

    private void start(ConfigurableEnvironment environment) {
        if (!Arrays.asList(environment.getActiveProfiles()).contains("kafka")
                || environment.containsProperty("spring.kafka.bootstrap-servers")) {
            return;
        }
        // A broker started on an empty directory warns that its metadata log is empty, as it always is here.
        LoggingSystem.get(InJvmKafka.class.getClassLoader()).setLogLevel(CONTROLLER_LOGGER, LogLevel.ERROR);
        broker = new EmbeddedKafkaKraftBroker(1, 3);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        environment.getPropertySources().addFirst(new MapPropertySource("in-jvm-kafka",
                Map.of("spring.kafka.bootstrap-servers", broker.getBrokersAsString())));
        System.out.println("Kafka broker started in this JVM at " + broker.getBrokersAsString());
    }
}
