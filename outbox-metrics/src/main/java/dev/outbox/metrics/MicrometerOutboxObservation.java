package dev.outbox.metrics;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.PropagationHeaders;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import io.micrometer.observation.transport.ReceiverContext;
import io.micrometer.observation.transport.SenderContext;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Micrometer Observation at both ends of a record's life, so that a tracing bridge (Spring Boot's, for one) links
 * them into one trace:
 *
 * <ul>
 *   <li>{@code outbox.record.write}: a short observation when a record is saved, child of whatever is current (the
 *       HTTP request, say). Its context is injected into propagation headers, which are stored with the record as
 *       {@code name=value} pairs joined by {@code &}, URL-encoded.</li>
 *   <li>{@code outbox.record.process}: around each handler call, with the stored headers as the carrier, so the
 *       handler's span is a child of the write's, and is current while the handler runs.</li>
 * </ul>
 *
 * Both carry the low-cardinality key {@code outbox.event_type} and the high-cardinality {@code outbox.record_id}.
 */
public final class MicrometerOutboxObservation implements OutboxObservation {

    private final ObservationRegistry registry;

    public MicrometerOutboxObservation(ObservationRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
    }

    @Override
    public @Nullable String contextForWrite(OutboxRecord record) {
        if (registry.isNoop()) {
            return null;
        }
        SenderContext<Map<String, String>> context = new SenderContext<>(
                (carrier, name, value) -> Objects.requireNonNull(carrier).put(name, value));
        context.setCarrier(new LinkedHashMap<>());
        observation("outbox.record.write", "outbox write " + record.getEventType(), record, context).observe(() -> {
        });
        Map<String, String> headers = Objects.requireNonNull(context.getCarrier());
        if (headers.isEmpty()) {
            return null;
        }
        String encoded = PropagationHeaders.encode(headers);
        return encoded.length() <= OutboxRecord.MAX_TRACE_CONTEXT_LENGTH ? encoded : null;
    }

    @Override
    public void observeProcessing(OutboxRecord record, HandlerCall call) throws Exception {
        if (registry.isNoop()) {
            call.run();
            return;
        }
        ReceiverContext<Map<String, String>> context = new ReceiverContext<>(
                (carrier, name) -> carrier.get(name));
        context.setCarrier(PropagationHeaders.decode(record.getTraceContext()));
        observation("outbox.record.process", "outbox process " + record.getEventType(), record, context)
                .observeChecked(call::run);
    }

    private Observation observation(String name, String contextualName, OutboxRecord record,
            Observation.Context context) {
        return Observation.createNotStarted(name, () -> context, registry)
                .contextualName(contextualName)
                .lowCardinalityKeyValue("outbox.event_type", record.getEventType())
                .highCardinalityKeyValue("outbox.record_id", record.getId());
    }
}
