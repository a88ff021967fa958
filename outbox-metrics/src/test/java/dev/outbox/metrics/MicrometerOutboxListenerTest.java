package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerOutboxListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MicrometerOutboxListener listener = new MicrometerOutboxListener(registry);
    private final OutboxRecord record = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
            .payload("{}").build(Clock.systemUTC());

    @Test
    void countsEachOutcomeAndTimesHandlersBySuccessAndFailure() {
        listener.onCompleted(record, Duration.ofMillis(5));
        listener.onCompleted(record, Duration.ofMillis(7));
        listener.onRetryScheduled(record, new IllegalStateException("down"), 1, Duration.ofMillis(3));
        listener.onFailed(record, new IllegalStateException("down"), Duration.ofMillis(2));
        listener.onStatusWriteRejected(record);

        assertThat(registry.get("outbox.records.processed").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("outbox.records.retried").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.records.failed").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.records.rejected").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "success").timer().count()).isEqualTo(2);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "success").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(12.0);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "failure").timer().count()).isEqualTo(2);
    }
}
