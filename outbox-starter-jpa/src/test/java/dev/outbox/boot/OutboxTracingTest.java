package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.processing.OutboxProcessor;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

/**
 * The starter wires tracing end to end: the context of the observation current at write time is stored in the row,
 * and the handler runs inside an {@code outbox.record.process} observation that receives it. The registry's handler
 * stands in for a tracing bridge: it injects a header on send and notes what it receives.
 */
class OutboxTracingTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                    org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration.class,
                    org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                    OutboxMetricsAutoConfiguration.class,
                    OutboxAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=jdbc:h2:mem:tracing_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "spring.jpa.hibernate.ddl-auto=none",
                    "outbox.schema-initialization.enabled=true",
                    "outbox.processing.enabled=false")
            .withUserConfiguration(TracingConfiguration.class);

    @Test
    void theWritersContextIsStoredWithTheRecordAndReceivedAroundItsHandler() {
        runner.run(context -> {
            ObservationRegistry registry = context.getBean(ObservationRegistry.class);
            FakeTracer tracer = context.getBean(FakeTracer.class);
            OutboxRecord written = Observation.createNotStarted("http.server.requests", registry)
                    .observe(() -> context.getBean(Outbox.class).schedule(new Ping("x"), "order-1"));

            OutboxRecord stored = context.getBean(OutboxRecordRepository.class).findById(written.getId())
                    .orElseThrow();
            assertThat(stored.getTraceContext()).isEqualTo("traceparent=span-of-outbox.record.write");

            assertThat(context.getBean(OutboxProcessor.class).processDueRecords()).isEqualTo(1);

            assertThat(tracer.received).containsExactly(Map.of("traceparent", "span-of-outbox.record.write"));
            assertThat(context.getBean(TracingConfiguration.class).observedInHandler)
                    .containsExactly("outbox.record.process");
        });
    }

    record Ping(String value) {
    }

    /** Stands in for a propagating tracer: injects a header naming the sending observation, notes received ones. */
    static final class FakeTracer implements ObservationHandler<Observation.Context> {
        final List<Map<String, String>> received = new CopyOnWriteArrayList<>();

        @Override
        @SuppressWarnings("unchecked")
        public void onStart(Observation.Context context) {
            if (context instanceof SenderContext<?> sender) {
                ((SenderContext<Object>) sender).getSetter().set(sender.getCarrier(), "traceparent",
                        "span-of-" + context.getName());
            }
            if (context instanceof ReceiverContext<?> receiver) {
                ReceiverContext<Object> typed = (ReceiverContext<Object>) receiver;
                received.add(Map.of("traceparent", String.valueOf(typed.getGetter().get(typed.getCarrier(),
                        "traceparent"))));
            }
        }

        @Override
        public boolean supportsContext(Observation.Context context) {
            return true;
        }
    }

    static class TracingConfiguration {
        final List<String> observedInHandler = new CopyOnWriteArrayList<>();

        @Bean
        FakeTracer fakeTracer() {
            return new FakeTracer();
        }

        @Bean
        ObservationRegistry observationRegistry(FakeTracer tracer) {
            ObservationRegistry registry = ObservationRegistry.create();
            registry.observationConfig().observationHandler(tracer);
            return registry;
        }

        @Bean
        OutboxRecordProcessor recordingProcessor(ObservationRegistry registry) {
            return record -> {
                Observation current = registry.getCurrentObservation();
                observedInHandler.add(current == null ? "none" : current.getContext().getName());
            };
        }
    }
}
