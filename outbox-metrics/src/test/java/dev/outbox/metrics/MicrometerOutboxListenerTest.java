package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.testing.MutableClock;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class MicrometerOutboxListenerTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MutableClock clock = MutableClock.startingNow();
    private final MicrometerOutboxListener listener = new MicrometerOutboxListener(registry, clock, 3);

    @Test
    void countsEachOutcomeByEventTypeAndTimesHandlersBySuccessAndFailure() {
        OutboxRecord placed = record("OrderPlaced");
        OutboxRecord shipped = record("OrderShipped");
        listener.onCompleted(placed, Duration.ofMillis(5));
        listener.onCompleted(placed, Duration.ofMillis(7));
        listener.onCompleted(shipped, Duration.ofMillis(1));
        listener.onRetryScheduled(placed, new IllegalStateException("down"), 1, Duration.ofMillis(3));
        listener.onFailed(shipped, new IllegalStateException("down"), Duration.ofMillis(2));
        listener.onStatusWriteRejected(placed);

        assertThat(count("outbox.records.processed", "OrderPlaced")).isEqualTo(2.0);
        assertThat(count("outbox.records.processed", "OrderShipped")).isEqualTo(1.0);
        assertThat(count("outbox.records.retried", "OrderPlaced")).isEqualTo(1.0);
        assertThat(count("outbox.records.failed", "OrderShipped")).isEqualTo(1.0);
        assertThat(registry.get("outbox.records.rejected").counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "success").timer().count()).isEqualTo(3);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "success").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(13.0);
        assertThat(registry.get("outbox.processing.time").tag("outcome", "failure").timer().count()).isEqualTo(2);
    }

    @Test
    void typedHandlersAreTaggedByIdAndTheRecordProcessorAsNone() {
        OutboxRecord placed = record("OrderPlaced");
        listener.onCompleted(placed, Duration.ZERO);
        listener.onCompleted(placed.withHandlerId("mailer"), Duration.ZERO);
        listener.onFailed(placed.withHandlerId("ledger"), new IllegalStateException("down"), Duration.ZERO);

        assertThat(registry.get("outbox.records.processed").tags("event_type", "OrderPlaced", "handler", "none")
                .counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.records.processed").tags("event_type", "OrderPlaced", "handler", "mailer")
                .counter().count()).isEqualTo(1.0);
        assertThat(registry.get("outbox.records.failed").tags("event_type", "OrderPlaced", "handler", "ledger")
                .counter().count()).isEqualTo(1.0);
    }

    @Test
    void theLagRunsFromCreationToTheStoredCompletion() {
        OutboxRecord placed = record("OrderPlaced");
        clock.advance(Duration.ofMillis(250));

        listener.onCompleted(placed, Duration.ofMillis(5));

        assertThat(registry.get("outbox.records.lag").timer().totalTime(TimeUnit.MILLISECONDS)).isEqualTo(250.0);
    }

    @Test
    void eventTypesBeyondTheCapAreCountedAsOther() {
        for (int i = 0; i < 10; i++) {
            listener.onCompleted(record("Type" + i), Duration.ZERO);
        }

        assertThat(registry.find("outbox.records.processed").counters()).extracting(c -> c.getId().getTag("event_type"))
                .containsExactlyInAnyOrder("Type0", "Type1", "Type2", "other");
        assertThat(count("outbox.records.processed", "other")).isEqualTo(7.0);
    }

    @Test
    void twoOutboxesCountIntoSeriesOfTheirOwnUnderTheirTag() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry(); // without the untagged listener's meters
        MicrometerOutboxListener orders = new MicrometerOutboxListener(registry, clock, 3, Tags.of("outbox", "orders"));
        MicrometerOutboxListener billing = new MicrometerOutboxListener(registry, clock, 3,
                Tags.of("outbox", "billing"));
        orders.onCompleted(record("OrderPlaced"), Duration.ZERO);
        orders.onCompleted(record("OrderPlaced"), Duration.ZERO);
        billing.onCompleted(record("OrderPlaced"), Duration.ZERO);
        orders.onPublished(record("OrderPlaced").withHandlerId("kafka"), Duration.ZERO, false);

        assertThat(registry.get("outbox.records.processed").tag("outbox", "orders").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("outbox.records.processed").tag("outbox", "billing").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("outbox.publisher.published").tag("outbox", "orders").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.getMeters()).allSatisfy(meter -> assertThat(meter.getId().getTag("outbox"))
                .as(meter.getId().toString()).isIn("orders", "billing"));
    }

    @Test
    void theCapMustBePositive() {
        assertThatThrownBy(() -> new MicrometerOutboxListener(registry, clock, 0))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("maxEventTypes must be at least 1 but was 0");
    }

    private double count(String name, String eventType) {
        return registry.get(name).tag("event_type", eventType).counter().count();
    }

    @Test
    void publishersCountAcknowledgementsFailuresByCauseRedeliveriesAndDuplicates() {
        OutboxRecord first = record("OrderPlaced").withHandlerId("kafka");
        OutboxRecord again = first.toBuilder().retryCount(1).lastError("PublishException: timeout").build();
        listener.onPublished(first, Duration.ofMillis(4), false);
        listener.onPublishFailed(first, PublishException.timeout(first, Duration.ofSeconds(30)), Duration.ofSeconds(30));
        listener.onPublishFailed(first, new PublishException(Reason.TOO_LARGE, "too large"), Duration.ofMillis(1));
        listener.onPublishFailed(first, new IllegalStateException("bug"), Duration.ofMillis(1));
        listener.onPublished(again, Duration.ofMillis(6), false);
        listener.onPublished(again.withHandlerId("nats"), Duration.ofMillis(2), true);

        assertThat(registry.get("outbox.publisher.published").tag("publisher", "kafka").counter().count())
                .isEqualTo(2.0);
        assertThat(registry.get("outbox.publisher.latency").tag("publisher", "kafka").timer()
                .totalTime(TimeUnit.MILLISECONDS)).isEqualTo(10.0);
        assertThat(registry.get("outbox.publisher.redeliveries").tag("publisher", "kafka").counter().count())
                .isEqualTo(1.0);
        assertThat(registry.get("outbox.publisher.duplicates").tag("publisher", "kafka").counter().count()).isZero();
        assertThat(registry.get("outbox.publisher.duplicates").tag("publisher", "nats").counter().count())
                .isEqualTo(1.0);
        for (String cause : new String[] {"timeout", "too_large", "other"}) {
            assertThat(registry.get("outbox.publisher.failed").tags("publisher", "kafka", "cause", cause).counter()
                    .count()).as(cause).isEqualTo(1.0);
        }
    }

    private OutboxRecord record(String eventType) {
        return OutboxRecord.builder().aggregateId("order-1").eventType(eventType).payload("{}").build(clock);
    }
}
