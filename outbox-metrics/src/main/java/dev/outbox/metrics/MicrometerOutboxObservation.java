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
 *       handler's span is a child of the write's, and is current while the handler runs. For a publisher it runs
 *       from the publish call until the flush of the record's burst returned, so it covers the send (not the wait
 *       for the broker's acknowledgement); see {@link #observePublish}.</li>
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
        processing(record).observeChecked(call::run);
    }

    /**
     * The same observation as a handler call's, current while {@code publish} runs and stopped once the engine flushed
     * the record's burst: a publisher that sends in its flush (RabbitMQ's) is sent within it. A failure of the flush
     * is recorded on it.
     */
    @Override
    public PublishEnd observePublish(OutboxRecord record, HandlerCall call) throws Exception {
        if (registry.isNoop()) {
            call.run();
            return flushFailure -> { };
        }
        Observation observation = processing(record).start();
        try (Observation.Scope scope = observation.openScope()) {
            call.run();
        } catch (Throwable e) {
            observation.error(e);
            observation.stop();
            throw e;
        }
        return flushFailure -> {
            if (flushFailure != null) {
                observation.error(flushFailure);
            }
            observation.stop();
        };
    }

    /** {@code outbox.record.process}, continuing the trace context stored with the record. */
    private Observation processing(OutboxRecord record) {
        ReceiverContext<Map<String, String>> context = new ReceiverContext<>(
                (carrier, name) -> carrier.get(name));
        context.setCarrier(PropagationHeaders.decode(record.getTraceContext()));
        return observation("outbox.record.process", "outbox process " + record.getEventType(), record, context);
    }

    private Observation observation(String name, String contextualName, OutboxRecord record,
            Observation.Context context) {
        return Observation.createNotStarted(name, () -> context, registry)
                .contextualName(contextualName)
                .lowCardinalityKeyValue("outbox.event_type", record.getEventType())
                .highCardinalityKeyValue("outbox.record_id", record.getId());
    }
}
