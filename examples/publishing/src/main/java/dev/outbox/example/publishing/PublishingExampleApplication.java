package dev.outbox.example.publishing;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * Places a few orders, each with its outbox records in the same transaction; the outbox publishes them to the broker
 * of the active profile ({@code kafka}, {@code rabbitmq} or {@code nats}), and this application consumes them back,
 * logs them, and ends when all have arrived. Without exactly one of those profiles it does not start
 * ({@link BrokerProfileCheck}).
 */
@SpringBootApplication
public class PublishingExampleApplication {

    public static void main(String[] args) {
        SpringApplication application = new SpringApplication(PublishingExampleApplication.class);
        int exitCode;
        try (InJvmKafka kafka = new InJvmKafka()) {
            application.addListeners(kafka);
            // closes the context before the broker stops (the end of the try block)
            exitCode = SpringApplication.exit(application.run(args));
        }
        System.exit(exitCode);
    }
}
