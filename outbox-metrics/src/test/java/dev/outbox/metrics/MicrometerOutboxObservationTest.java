package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxObservation.PublishEnd;
import dev.outbox.testing.MutableClock;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler.FirstMatchingCompositeObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.TraceContext;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.handler.DefaultTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingReceiverTracingObservationHandler;
import io.micrometer.tracing.handler.PropagatingSenderTracingObservationHandler;
import io.micrometer.tracing.propagation.Propagator;
import io.micrometer.tracing.test.simple.SimpleSpan;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** A trace followed from the writer's span, through the record, to the handler, with an in-memory tracer. */
class MicrometerOutboxObservationTest {

    private final SimpleTracer tracer = new SimpleTracer();
    private final Propagator propagator = new TraceparentPropagator(tracer);
    private final ObservationRegistry registry = ObservationRegistry.create();
    private final MicrometerOutboxObservation observation = new MicrometerOutboxObservation(registry);
    private final OutboxRecord record = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
            .payload("{}").build(MutableClock.startingNow());

    MicrometerOutboxObservationTest() {
        registry.observationConfig().observationHandler(new FirstMatchingCompositeObservationHandler(
                new PropagatingSenderTracingObservationHandler<>(tracer, propagator),
                new PropagatingReceiverTracingObservationHandler<>(tracer, propagator),
                new DefaultTracingObservationHandler(tracer)));
    }

    @Test
    void theHandlerRunsInASpanOfTheTraceThatWroteTheRecord() throws Exception {
        // The writer's request, observed as Spring's web instrumentation observes it.
        Observation http = Observation.createNotStarted("http.server.requests", registry)
                .contextualName("POST /orders").start();
        String stored;
        try (Observation.Scope scope = http.openScope()) {
            stored = observation.contextForWrite(record);
        } finally {
            http.stop();
        }
        SimpleSpan request = span("POST /orders");
        assertThat(stored).startsWith("traceparent=00-" + request.getTraceId() + "-");
        SimpleSpan write = span("outbox write OrderPlaced");
        assertThat(write.getParentId()).as("the write is a child of the request").isEqualTo(request.getSpanId());

        AtomicReference<Span> inHandler = new AtomicReference<>();
        observation.observeProcessing(record.withTraceContext(stored), () -> inHandler.set(tracer.currentSpan()));

        SimpleSpan process = span("outbox process OrderPlaced");
        assertThat(process.getTraceId()).isEqualTo(request.getTraceId());
        assertThat(process.getParentId()).as("processing continues the write").isEqualTo(write.getSpanId());
        assertThat(inHandler.get()).isNotNull();
        assertThat(inHandler.get().context().spanId()).as("current while the handler runs")
                .isEqualTo(process.getSpanId());
        assertThat(process.getTags()).containsEntry("outbox.event_type", "OrderPlaced")
                .containsEntry("outbox.record_id", record.getId());
    }

    @Test
    void aHandlerFailureEndsTheSpanWithTheErrorAndIsRethrown() {
        IllegalStateException failure = new IllegalStateException("broker down");

        assertThatThrownBy(() -> observation.observeProcessing(record, () -> {
            throw failure;
        })).isSameAs(failure);

        assertThat(span("outbox process OrderPlaced").getError()).isSameAs(failure);
    }

    @Test
    void aPublishSpanIsCurrentWhilePublishRunsAndEndsWhenItsBurstWasFlushed() throws Exception {
        AtomicReference<Span> inPublish = new AtomicReference<>();

        PublishEnd end = observation.observePublish(record, () -> inPublish.set(tracer.currentSpan()));

        assertThat(tracer.getSpans()).hasSize(1);
        SimpleSpan publish = tracer.getSpans().getFirst(); // named when it stops
        assertThat(inPublish.get()).as("current while publish runs").isSameAs(publish);
        assertThat(tracer.currentSpan()).as("not current after the publish call").isNull();
        assertThat(publish.getEndTimestamp()).as("open until the flush sent the message").isEqualTo(Instant.EPOCH);
        IllegalStateException flushFailure = new IllegalStateException("channel closed");

        end.flushed(flushFailure);

        assertThat(publish.getName()).isEqualTo("outbox process OrderPlaced");
        assertThat(publish.getEndTimestamp()).isAfter(Instant.EPOCH);
        assertThat(publish.getError()).isSameAs(flushFailure);
    }

    @Test
    void aPublishThatThrowsEndsItsSpanWithTheError() {
        IllegalStateException refused = new IllegalStateException("no exchange");

        assertThatThrownBy(() -> observation.observePublish(record, () -> {
            throw refused;
        })).isSameAs(refused);

        SimpleSpan publish = span("outbox process OrderPlaced");
        assertThat(publish.getError()).isSameAs(refused);
        assertThat(publish.getEndTimestamp()).isAfter(Instant.EPOCH);
    }

    @Test
    void withoutTracingNothingIsStoredAndTheHandlerStillRuns() throws Exception {
        MicrometerOutboxObservation off = new MicrometerOutboxObservation(ObservationRegistry.NOOP);
        AtomicReference<String> ran = new AtomicReference<>();

        assertThat(off.contextForWrite(record)).isNull();
        off.observeProcessing(record, () -> ran.set("yes"));

        assertThat(ran).hasValue("yes");
    }

    private SimpleSpan span(String name) {
        return tracer.getSpans().stream().filter(span -> name.equals(span.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no span " + name + " in " + tracer.getSpans()));
    }

    /** A minimal W3C-style propagator for the in-memory tracer: traceparent = 00-traceId-spanId-01. */
    private static final class TraceparentPropagator implements Propagator {
        private final Tracer tracer;

        TraceparentPropagator(Tracer tracer) {
            this.tracer = tracer;
        }

        @Override
        public List<String> fields() {
            return List.of("traceparent");
        }

        @Override
        public <C> void inject(TraceContext context, C carrier, Setter<C> setter) {
            setter.set(carrier, "traceparent", "00-" + context.traceId() + "-" + context.spanId() + "-01");
        }

        @Override
        public <C> Span.Builder extract(C carrier, Getter<C> getter) {
            String traceparent = getter.get(carrier, "traceparent");
            if (traceparent == null) {
                return tracer.spanBuilder();
            }
            String[] parts = traceparent.split("-");
            return tracer.spanBuilder().setParent(tracer.traceContextBuilder().traceId(parts[1]).spanId(parts[2])
                    .sampled(true).build());
        }
    }
}
