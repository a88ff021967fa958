package dev.outbox.example.publishing;

import java.util.Arrays;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.ApplicationListener;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.kafka.test.EmbeddedKafkaKraftBroker;

/**
 * With the {@code kafka} profile and no {@code spring.kafka.bootstrap-servers}, starts a single-node Kafka broker in
 * this JVM (Spring Kafka's test broker) before the application reads its settings, and stops it with the application:
 * the example runs where no Kafka is installed.
 */
final class InJvmKafka implements ApplicationListener<ApplicationEvent> {

    private @Nullable EmbeddedKafkaKraftBroker broker;

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
            start(prepared.getEnvironment());
        } else if (event instanceof ContextClosedEvent && broker != null) {
            broker.destroy();
            broker = null;
        }
    }

    private void start(ConfigurableEnvironment environment) {
        if (!Arrays.asList(environment.getActiveProfiles()).contains("kafka")
                || environment.containsProperty("spring.kafka.bootstrap-servers")) {
            return;
        }
        broker = new EmbeddedKafkaKraftBroker(1, 3);
        broker.brokerProperty("auto.create.topics.enable", "false");
        broker.afterPropertiesSet();
        environment.getPropertySources().addFirst(new MapPropertySource("in-jvm-kafka",
                Map.of("spring.kafka.bootstrap-servers", broker.getBrokersAsString())));
        System.out.println("Kafka broker started in this JVM at " + broker.getBrokersAsString());
    }
}
