package dev.outbox.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.processing.HandlerRoute;
import dev.outbox.testing.InMemoryRecordStore;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/** A publisher is a handler: subscriptions, its own records, its route. */
class PublisherRegistrationTest {

    private final OutboxPublisher publisher = record -> CompletableFuture.completedFuture(null);

    @Test
    void aPublisherOfEveryEventTypeGetsARecordOfItsOwnBesideEachTypedHandler() {
        OutboxHandlers handlers = OutboxHandlers.builder()
                .handler(HandlerRegistration.builder("mailer", String.class).eventType("OrderPlaced")
                        .handler((event, metadata) -> { }).build())
                .publisher(PublisherRegistration.of("kafka", publisher))
                .deserializer((payload, type) -> payload).build();
        InMemoryRecordStore store = new InMemoryRecordStore();

        handlers.fanningOut(store).save(record("OrderPlaced"));
        handlers.fanningOut(store).save(record("CustomerMoved"));

        assertThat(handlers.handlerIdsFor("OrderPlaced")).containsExactly("mailer", "kafka");
        assertThat(handlers.handlerIdsFor("CustomerMoved")).containsExactly("kafka");
        assertThat(store.all()).extracting(OutboxRecord::getHandlerId)
                .containsExactlyInAnyOrder("mailer", "kafka", "kafka");
        assertThat(handlers.handlerIds()).containsExactlyInAnyOrder("mailer", "kafka");
    }

    @Test
    void aPublisherOfSomeEventTypesTakesOnlyThoseAndItsRouteIsAPublishingOne() {
        OutboxHandlers handlers = OutboxHandlers.builder()
                .publisher(PublisherRegistration.builder("nats", publisher).eventTypes(Set.of("OrderPlaced")).build())
                .build();

        assertThat(handlers.handlerIdsFor("OrderPlaced")).containsExactly("nats");
        assertThat(handlers.handlerIdsFor("CustomerMoved")).isEmpty();
        HandlerRoute route = handlers.routeFor(record("OrderPlaced").withHandlerId("nats"));
        assertThat(route.publisher()).isSameAs(publisher);
        HandlerRoute stale = handlers.routeFor(record("CustomerMoved").withHandlerId("nats"));
        assertThat(stale.publisher()).isNull();
        assertThatThrownBy(() -> stale.handler().process(record("CustomerMoved")))
                .hasMessageContaining("is addressed to publisher 'nats', which publishes [OrderPlaced] now");
    }

    @Test
    void idsAreUniqueAcrossHandlersAndPublishers() {
        OutboxHandlers.Builder builder = OutboxHandlers.builder()
                .handler(HandlerRegistration.builder("kafka", String.class).handler((event, metadata) -> { }).build());

        assertThatThrownBy(() -> builder.publisher(PublisherRegistration.of("kafka", publisher)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("handler id 'kafka' is "
                        + "registered twice");
    }

    @Test
    void badSettingsAreRefusedNamingTheField() {
        assertThatThrownBy(() -> PublisherRegistration.builder("bad id", publisher))
                .hasMessageContaining("may contain only letters, digits");
        assertThatThrownBy(() -> PublisherRegistration.builder("kafka", publisher).eventTypes(List.of()))
                .hasMessageStartingWith("eventTypes of publisher 'kafka' must not be empty");
        assertThatThrownBy(() -> PublisherRegistration.builder("kafka", publisher).eventTypes(List.of(" ")))
                .hasMessage("eventTypes of publisher 'kafka' must not hold a blank event type");
    }

    @Test
    void asAOneRecordHandlerAPublisherWaitsForTheAcknowledgementAndThrowsWhatTheBrokerSaid() {
        PublishException refused = new PublishException(PublishException.Reason.UNROUTABLE, "no queue bound");
        OutboxPublisher refusing = record -> CompletableFuture.failedFuture(refused);
        OutboxPublisher silent = new OutboxPublisher() {
            @Override
            public CompletableFuture<?> publish(OutboxRecord record) {
                return new CompletableFuture<>();
            }

            @Override
            public java.time.Duration acknowledgementTimeout() {
                return java.time.Duration.ofMillis(50);
            }
        };

        assertThatThrownBy(() -> refusing.asProcessor().process(record("E"))).isSameAs(refused);
        assertThatThrownBy(() -> silent.asProcessor().process(record("E"))).isInstanceOfSatisfying(
                PublishException.class, e -> assertThat(e.reason()).isEqualTo(PublishException.Reason.TIMEOUT));
    }

    private static OutboxRecord record(String eventType) {
        return OutboxRecord.builder().aggregateId("order-1").eventType(eventType).payload("\"x\"")
                .build(Clock.systemUTC());
    }
}
