package dev.outbox.example.publishing;

import java.util.Arrays;
import java.util.List;
import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.diagnostics.AbstractFailureAnalyzer;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.support.EnvironmentPostProcessorApplicationListener;
import org.springframework.context.ApplicationListener;
import org.springframework.core.Ordered;
import org.springframework.core.env.Environment;

/**
 * Stops the example before it starts anything unless exactly one broker profile is active; Spring Boot then prints
 * what to pass ({@link Analyzer}) instead of a stack trace, and the process ends with a non-zero exit code. Registered
 * in {@code META-INF/spring.factories}.
 */
final class BrokerProfileCheck implements ApplicationListener<ApplicationEnvironmentPreparedEvent>, Ordered {

    static final List<String> BROKERS = List.of("kafka", "rabbitmq", "nats");

    @Override
    public void onApplicationEvent(ApplicationEnvironmentPreparedEvent event) {
        brokerProfile(event.getEnvironment());
    }

    /** Just after the profiles of the configuration files are known. */
    @Override
    public int getOrder() {
        return EnvironmentPostProcessorApplicationListener.DEFAULT_ORDER + 1;
    }

    /**
     * The one active broker profile.
     *
     * @throws NoBrokerProfileException if none or several are active
     */
    static String brokerProfile(Environment environment) {
        List<String> active = Arrays.stream(environment.getActiveProfiles()).filter(BROKERS::contains).toList();
        if (active.size() != 1) {
            throw new NoBrokerProfileException(Arrays.asList(environment.getActiveProfiles()));
        }
        return active.get(0);
    }

    /** None or several of the broker profiles are active. */
    static final class NoBrokerProfileException extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final List<String> activeProfiles;

        NoBrokerProfileException(List<String> activeProfiles) {
            super("activate one broker profile of " + BROKERS + "; active profiles: " + activeProfiles);
            this.activeProfiles = List.copyOf(activeProfiles);
        }
    }

    /** Turns {@link NoBrokerProfileException} into Spring Boot's short "APPLICATION FAILED TO START" report. */
    static final class Analyzer extends AbstractFailureAnalyzer<NoBrokerProfileException> {

        @Override
        protected FailureAnalysis analyze(Throwable rootFailure, NoBrokerProfileException cause) {
            return new FailureAnalysis("The publishing example needs exactly one broker profile of kafka, rabbitmq "
                    + "or nats; active profiles: " + (cause.activeProfiles.isEmpty() ? "none"
                            : String.join(", ", cause.activeProfiles)) + ".",
                    "Pass one: mvn -B -f examples/publishing spring-boot:run -Dspring-boot.run.profiles=kafka "
                            + "(or rabbitmq, nats), or --spring.profiles.active=kafka to the jar.",
                    cause);
        }
    }
}
