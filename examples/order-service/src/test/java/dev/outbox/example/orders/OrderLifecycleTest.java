package dev.outbox.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.example.orders.OrdersApi.Response;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/** The happy path over HTTP: every change of an order reaches the processor once, in the order it was made. */
@SpringBootTest(webEnvironment = RANDOM_PORT)
@ActiveProfiles("test")
class OrderLifecycleTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    @LocalServerPort
    private int port;

    @Autowired
    private JsonMapper jsonMapper;

    @Autowired
    private OutboxRecordRepository outboxRecords;

    private OrdersApi api;

    @BeforeEach
    void setUp() {
        api = new OrdersApi(port, jsonMapper);
    }

    @Test
    void createUpdateAndCancelAreHandledInOrderWithTheirPayloads() {
        Response created = api.post("/orders", """
                {"customer": "alice", "amount": 25.50}
                """);
        assertThat(created.status()).isEqualTo(201);
        String id = created.text("id");
        assertThat(created.location()).isEqualTo("/orders/" + id);
        assertThat(created.text("status")).isEqualTo("CREATED");
        assertThat(created.body().path("version").asLong()).isZero();

        Response updated = api.put("/orders/" + id, """
                {"amount": 30.00, "version": 0}
                """);
        assertThat(updated.status()).isEqualTo(200);
        assertThat(updated.text("status")).isEqualTo("UPDATED");
        assertThat(updated.body().path("amount").decimalValue()).isEqualByComparingTo("30.00");
        assertThat(updated.body().path("version").asLong()).isEqualTo(1);

        Response cancelled = api.post("/orders/" + id + "/cancel");
        assertThat(cancelled.status()).isEqualTo(200);
        assertThat(cancelled.text("status")).isEqualTo("CANCELLED");
        assertThat(cancelled.body().path("version").asLong()).isEqualTo(2);

        Response order = api.get("/orders/" + id);
        assertThat(order.status()).isEqualTo(200);
        assertThat(order.text("customer")).isEqualTo("alice");
        assertThat(order.text("status")).isEqualTo("CANCELLED");
        assertThat(order.body().path("amount").decimalValue()).isEqualByComparingTo("30.00");

        await().atMost(DEADLINE).untilAsserted(() -> assertThat(api.get("/orders/" + id + "/events").eventTypes())
                .containsExactly("OrderCreated", "OrderUpdated", "OrderCancelled"));

        JsonNode events = api.get("/orders/" + id + "/events").body();
        JsonNode createdEvent = events.get(0).path("payload");
        assertThat(createdEvent.path("orderId").asString()).isEqualTo(id);
        assertThat(createdEvent.path("customer").asString()).isEqualTo("alice");
        assertThat(createdEvent.path("amount").decimalValue()).isEqualByComparingTo("25.50");

        JsonNode updatedEvent = events.get(1).path("payload");
        assertThat(updatedEvent.path("orderId").asString()).isEqualTo(id);
        assertThat(updatedEvent.path("previousAmount").decimalValue()).isEqualByComparingTo("25.50");
        assertThat(updatedEvent.path("amount").decimalValue()).isEqualByComparingTo("30.00");

        JsonNode cancelledEvent = events.get(2).path("payload");
        assertThat(cancelledEvent.path("orderId").asString()).isEqualTo(id);
        assertThat(cancelledEvent.path("customer").asString()).isEqualTo("alice");
        assertThat(cancelledEvent.path("amount").decimalValue()).isEqualByComparingTo("30.00");

        // The handled events are exactly the outbox records of the order, in the order they were written.
        List<OutboxRecord> records = outboxRecords.findByAggregateId(id);
        List<String> handledIds = new ArrayList<>();
        List<Long> handledSequences = new ArrayList<>();
        events.forEach(event -> {
            handledIds.add(event.path("recordId").asString());
            handledSequences.add(event.path("sequence").asLong());
        });
        assertThat(handledIds).containsExactlyElementsOf(records.stream().map(OutboxRecord::getId).toList());
        assertThat(handledSequences).isSorted().doesNotHaveDuplicates();
        assertThat(records).extracting(OutboxRecord::getEventType)
                .containsExactly("OrderCreated", "OrderUpdated", "OrderCancelled");

        await().atMost(DEADLINE).untilAsserted(() -> assertThat(outboxRecords.findByAggregateId(id))
                .extracting(OutboxRecord::getStatus).containsOnly(OutboxRecordStatus.COMPLETED));
    }

    @Test
    void eventsOfOneOrderDoNotShowUpUnderAnother() {
        String first = api.createOrder("bob", "10.00");
        String second = api.createOrder("carol", "20.00");

        await().atMost(DEADLINE).untilAsserted(() -> {
            assertThat(api.get("/orders/" + first + "/events").eventTypes()).containsExactly("OrderCreated");
            assertThat(api.get("/orders/" + second + "/events").eventTypes()).containsExactly("OrderCreated");
        });
        assertThat(api.get("/orders/" + second + "/events").body().get(0).path("payload").path("amount")
                .decimalValue()).isEqualByComparingTo(new BigDecimal("20.00"));
    }

    @Test
    void unknownOrderIsNotFound() {
        Response order = api.get("/orders/no-such-order");
        assertThat(order.status()).isEqualTo(404);
        assertThat(order.contentType()).startsWith("application/problem+json");
        assertThat(order.text("title")).isEqualTo("Order not found");
        assertThat(order.text("orderId")).isEqualTo("no-such-order");

        assertThat(api.get("/orders/no-such-order/events").status()).isEqualTo(404);
        assertThat(api.post("/orders/no-such-order/cancel").status()).isEqualTo(404);
        assertThat(outboxRecords.findByAggregateId("no-such-order")).isEmpty();
    }
}
