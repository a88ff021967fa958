package dev.outbox.context;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordContext;
import dev.outbox.testing.InMemoryRecordStore;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

class MdcRecordContextTest {

    private final MdcRecordContext context = MdcRecordContext.of(List.of("tenant", "correlationId"));

    @AfterEach
    void clearMdc() {
        MDC.clear();
    }

    @Test
    void capturesOnlyTheNamedKeysThatAreSet() {
        MDC.put("tenant", "acme");
        MDC.put("user", "not carried");

        assertThat(context.capture()).containsExactly(Map.entry("tenant", "acme"));
    }

    @Test
    void restoresAroundTheCallAndPutsBackWhatWasThere() {
        MDC.put("tenant", "the worker's own");

        try (RecordContext.Scope scope = context.restore(Map.of("tenant", "acme", "correlationId", "req-1"))) {
            assertThat(MDC.get("tenant")).isEqualTo("acme");
            assertThat(MDC.get("correlationId")).isEqualTo("req-1");
        }

        assertThat(MDC.get("tenant")).isEqualTo("the worker's own");
        assertThat(MDC.get("correlationId")).isNull();
        assertThat(context.restore(Map.of("other", "x"))).isSameAs(RecordContext.Scope.NONE);
    }

    @Test
    void aKeyThatCannotBeAHeaderNameIsRefused() {
        assertThatThrownBy(() -> MdcRecordContext.of(List.of("tenant id")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("MDC key 'tenant id' cannot be a record header name");
    }

    @Test
    void theWritePathStoresTheCapturedHeadersAndTheProcessingPathRestoresThemAroundTheCall() throws Exception {
        InMemoryRecordStore store = new InMemoryRecordStore();
        MDC.put("tenant", "acme");
        OutboxRecord saved = RecordContexts.capturing(store, List.of(context)).save(OutboxRecord.builder()
                .aggregateId("order-1").eventType("OrderPlaced").payload("{}").header("tenant", "explicit")
                .header("source", "web").build(Clock.systemUTC()));
        MDC.clear();
        assertThat(saved.getHeaders()).as("the record's own value wins")
                .containsExactly(Map.entry("tenant", "explicit"), Map.entry("source", "web"));

        Map<String, String> seen = new HashMap<>();
        RecordContexts.restoring(OutboxObservation.NOOP, List.of(context))
                .observeProcessing(saved, () -> seen.put("tenant", MDC.get("tenant")));

        assertThat(seen).containsEntry("tenant", "explicit");
        assertThat(MDC.get("tenant")).isNull();

        List<String> observed = new ArrayList<>();
        OutboxObservation tracing = new OutboxObservation() {
            @Override
            public PublishEnd observePublish(OutboxRecord record, HandlerCall call) throws Exception {
                observed.add("publish");
                call.run();
                return flushFailure -> observed.add("flushed");
            }
        };
        RecordContexts.restoring(tracing, List.of(context))
                .observePublish(saved, () -> seen.put("publishing tenant", MDC.get("tenant"))).flushed(null);

        assertThat(seen).as("a publish call too").containsEntry("publishing tenant", "explicit");
        assertThat(observed).as("inside the delegate's publish observation, ended by it").containsExactly(
                "publish", "flushed");
        assertThat(MDC.get("tenant")).isNull();
    }
}
