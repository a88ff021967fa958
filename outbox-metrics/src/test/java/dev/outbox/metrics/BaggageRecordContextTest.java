package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.spi.RecordContext;
import io.micrometer.tracing.BaggageInScope;
import io.micrometer.tracing.Span;
import io.micrometer.tracing.Tracer;
import io.micrometer.tracing.test.simple.SimpleTracer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BaggageRecordContextTest {

    private final SimpleTracer tracer = new SimpleTracer();
    private final BaggageRecordContext context = BaggageRecordContext.of(tracer, List.of("tenant", "region"));

    @Test
    void capturesTheNamedBaggageCurrentAtTheWrite() {
        Span span = tracer.nextSpan().start();
        try (Tracer.SpanInScope inSpan = tracer.withSpan(span);
                BaggageInScope tenant = tracer.createBaggageInScope("tenant", "acme");
                BaggageInScope other = tracer.createBaggageInScope("user", "not carried")) {
            assertThat(context.capture()).containsExactly(Map.entry("tenant", "acme"));
        } finally {
            span.end();
        }
    }

    @Test
    void makesTheBaggageCurrentAroundTheHandlerCallAndClosesIt() {
        Span span = tracer.nextSpan().start();
        try (Tracer.SpanInScope inSpan = tracer.withSpan(span)) {
            try (RecordContext.Scope scope = context.restore(Map.of("tenant", "acme", "other", "x"))) {
                assertThat(tracer.getBaggage("tenant").get()).isEqualTo("acme");
            }
            assertThat(tracer.getBaggage("tenant").get()).isNull();
        } finally {
            span.end();
        }
        assertThat(context.restore(Map.of())).isSameAs(RecordContext.Scope.NONE);
    }

    @Test
    void aNameThatCannotBeAHeaderNameIsRefused() {
        assertThatThrownBy(() -> BaggageRecordContext.of(tracer, List.of("tenant id")))
                .hasMessageStartingWith("baggage name 'tenant id' cannot be a record header name");
    }
}
