package dev.outbox.metrics;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.Objects;

/**
 * Counts processing outcomes and times handlers in Micrometer. Observes only: it never changes what the processor does.
 *
 * <ul>
 *   <li>{@code outbox.records.processed} — records completed</li>
 *   <li>{@code outbox.records.retried} — failures that scheduled a retry</li>
 *   <li>{@code outbox.records.failed} — records that became FAILED</li>
 *   <li>{@code outbox.records.rejected} — outcomes not stored because the row changed meanwhile</li>
 *   <li>{@code outbox.processing.time} — handler time, tagged {@code outcome=success|failure}</li>
 * </ul>
 */
public final class MicrometerOutboxListener implements OutboxListener {

    private final Counter processed;
    private final Counter retried;
    private final Counter failed;
    private final Counter rejected;
    private final Timer successTime;
    private final Timer failureTime;

    public MicrometerOutboxListener(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        this.processed = Counter.builder("outbox.records.processed").description("Outbox records completed")
                .register(registry);
        this.retried = Counter.builder("outbox.records.retried").description("Handler failures that scheduled a retry")
                .register(registry);
        this.failed = Counter.builder("outbox.records.failed").description("Outbox records that became FAILED")
                .register(registry);
        this.rejected = Counter.builder("outbox.records.rejected")
                .description("Outcomes not stored because the record changed meanwhile").register(registry);
        this.successTime = Timer.builder("outbox.processing.time").tag("outcome", "success")
                .description("Time spent in record handlers").register(registry);
        this.failureTime = Timer.builder("outbox.processing.time").tag("outcome", "failure")
                .description("Time spent in record handlers").register(registry);
    }

    @Override
    public void onCompleted(OutboxRecord record, Duration handlerTime) {
        processed.increment();
        successTime.record(handlerTime);
    }

    @Override
    public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
        retried.increment();
        failureTime.record(handlerTime);
    }

    @Override
    public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
        failed.increment();
        failureTime.record(handlerTime);
    }

    @Override
    public void onStatusWriteRejected(OutboxRecord record) {
        rejected.increment();
    }
}
