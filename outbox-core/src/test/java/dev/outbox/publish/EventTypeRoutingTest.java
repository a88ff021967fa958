package dev.outbox.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.PublishException.Reason;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.Test;

class EventTypeRoutingTest {

    @Test
    void routesByEventTypeAndSendsTheRestToTheDefault() {
        EventTypeRouting<String> topics = EventTypeRouting.<String>builder("Kafka topic")
                .route("OrderPlaced", "orders").routes(Map.of("PaymentTaken", "payments"))
                .defaultDestination("events").build();

        assertThat(topics.destinationFor(record("OrderPlaced"))).isEqualTo("orders");
        assertThat(topics.destinationFor(record("PaymentTaken"))).isEqualTo("payments");
        assertThat(topics.destinationFor(record("CustomerMoved"))).isEqualTo("events");
    }

    @Test
    void withoutARouteOrADefaultTheRecordHasNoDestinationAndTheErrorSaysWhere() {
        EventTypeRouting<String> topics = EventTypeRouting.<String>builder("Kafka topic")
                .route("OrderPlaced", "orders").hint("set outbox.kafka.default-topic").build();
        OutboxRecord record = record("CustomerMoved");

        assertThatThrownBy(() -> topics.destinationFor(record)).isInstanceOfSatisfying(PublishException.class,
                e -> {
                    assertThat(e.reason()).isEqualTo(Reason.NO_DESTINATION);
                    assertThat(e.isRetryable()).isFalse();
                    assertThat(e).hasMessage("no Kafka topic for event type 'CustomerMoved' of record "
                            + record.getId() + ": routes exist for [OrderPlaced] and there is no default; set "
                            + "outbox.kafka.default-topic");
                });
    }

    @Test
    void aBlankEventTypeIsRefusedNamingTheKind() {
        assertThatThrownBy(() -> EventTypeRouting.<String>builder("NATS subject").route(" ", "x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("eventType of a NATS subject route must not be blank");
    }

    private static OutboxRecord record(String eventType) {
        return OutboxRecord.builder().aggregateId("order-1").eventType(eventType).payload("{}")
                .build(Clock.systemUTC());
    }
}
