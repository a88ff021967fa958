package dev.outbox.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.example.orders.OrdersApi.Response;
import dev.outbox.example.orders.order.OrderRepository;
import dev.outbox.example.orders.order.OrderService;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.context.ActiveProfiles;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;
import tools.jackson.databind.json.JsonMapper;

/**
 * Operations that break a rule are answered with a problem body, and write nothing: neither the order change nor an
 * outbox record.
 */
@SpringBootTest(webEnvironment = RANDOM_PORT)
@ActiveProfiles("test")
class RejectedOperationsTest {

    @LocalServerPort
    private int port;

    @Autowired
    private JsonMapper jsonMapper;

    @Autowired
    private OutboxRecordRepository outboxRecords;

    @Autowired
    private OrderRepository orderRepository;

    @Autowired
    private OrderService orderService;

    @Autowired
    private PlatformTransactionManager transactionManager;

    private OrdersApi api;

    @BeforeEach
    void setUp() {
        api = new OrdersApi(port, jsonMapper);
    }

    @Test
    void cancellingTwiceIsAConflictAndWritesNothing() {
        String id = api.createOrder("dave", "40.00");
        assertThat(api.post("/orders/" + id + "/cancel").status()).isEqualTo(200);
        List<String> recordsBefore = recordIds(id);
        assertThat(recordsBefore).hasSize(2);

        Response again = api.post("/orders/" + id + "/cancel");

        assertThat(again.status()).isEqualTo(409);
        assertThat(again.contentType()).startsWith("application/problem+json");
        assertThat(again.body().path("status").asInt()).isEqualTo(409);
        assertThat(again.text("title")).isEqualTo("Order cannot be changed");
        assertThat(again.text("detail")).contains(id).contains("cancelled");
        assertThat(again.text("orderId")).isEqualTo(id);

        Response order = api.get("/orders/" + id);
        assertThat(order.text("status")).isEqualTo("CANCELLED");
        assertThat(order.body().path("version").asLong()).isEqualTo(1);
        assertThat(recordIds(id)).isEqualTo(recordsBefore);
        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderCancelled");
    }

    @Test
    void updatingACancelledOrderIsAConflictAndWritesNothing() {
        String id = api.createOrder("erin", "15.00");
        assertThat(api.post("/orders/" + id + "/cancel").status()).isEqualTo(200);

        Response update = api.put("/orders/" + id, """
                {"amount": 99.00}
                """);

        assertThat(update.status()).isEqualTo(409);
        assertThat(update.text("detail")).contains("cannot update a cancelled order");
        Response order = api.get("/orders/" + id);
        assertThat(order.body().path("amount").decimalValue()).isEqualByComparingTo("15.00");
        assertThat(order.body().path("version").asLong()).isEqualTo(1);
        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderCancelled");
    }

    @Test
    void negativeAmountIsABadRequestAndLeavesTheOrderUnchanged() {
        String id = api.createOrder("frank", "10.00");

        Response update = api.put("/orders/" + id, """
                {"amount": -5.00}
                """);

        assertThat(update.status()).isEqualTo(400);
        assertThat(update.contentType()).startsWith("application/problem+json");
        assertThat(update.text("title")).isEqualTo("Invalid order");
        assertThat(update.text("detail")).isEqualTo("amount must be positive but was -5.00");
        Response order = api.get("/orders/" + id);
        assertThat(order.text("status")).isEqualTo("CREATED");
        assertThat(order.body().path("amount").decimalValue()).isEqualByComparingTo("10.00");
        assertThat(order.body().path("version").asLong()).isZero();
        assertThat(eventTypes(id)).containsExactly("OrderCreated");
    }

    @Test
    void staleVersionIsAConflictAndLeavesTheOrderUnchanged() {
        String id = api.createOrder("grace", "12.00");
        assertThat(api.put("/orders/" + id, "{\"amount\": 13.00, \"version\": 0}").status()).isEqualTo(200);

        Response stale = api.put("/orders/" + id, "{\"amount\": 14.00, \"version\": 0}");

        assertThat(stale.status()).isEqualTo(409);
        assertThat(stale.text("detail")).contains("is at version 1, not 0");
        assertThat(api.get("/orders/" + id).body().path("amount").decimalValue()).isEqualByComparingTo("13.00");
        assertThat(eventTypes(id)).containsExactly("OrderCreated", "OrderUpdated");
    }

    @Test
    void invalidNewOrdersAreBadRequestsAndCreateNothing() {
        long ordersBefore = orderRepository.count();
        long recordsBefore = totalOutboxRecords();

        for (String body : List.of(
                "{\"customer\": \"heidi\", \"amount\": -1}",
                "{\"customer\": \"heidi\", \"amount\": 0}",
                "{\"customer\": \"heidi\", \"amount\": 1.005}",
                "{\"customer\": \"heidi\"}",
                "{\"customer\": \" \", \"amount\": 5}",
                "{\"customer\": \"heidi\", \"amount\": \"lots\"}",
                "not json")) {
            Response response = api.post("/orders", body);
            assertThat(response.status()).as(body).isEqualTo(400);
            assertThat(response.contentType()).as(body).startsWith("application/problem+json");
        }

        assertThat(orderRepository.count()).isEqualTo(ordersBefore);
        assertThat(totalOutboxRecords()).isEqualTo(recordsBefore);
    }

    @Test
    void aFailureAfterTheEventIsScheduledRollsBackTheOrderAndTheEvent() {
        AtomicReference<String> orderId = new AtomicReference<>();
        TransactionTemplate transaction = new TransactionTemplate(transactionManager);

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            orderId.set(orderService.create("ivan", new BigDecimal("50.00")).getId());
            assertThat(outboxRecords.findByAggregateId(orderId.get())).hasSize(1); // visible inside the transaction
            throw new IllegalStateException("payment declined");
        })).hasMessage("payment declined");

        assertThat(orderId.get()).isNotNull();
        assertThat(orderRepository.findById(orderId.get())).isEmpty();
        assertThat(outboxRecords.findByAggregateId(orderId.get())).isEmpty();
    }

    // GH-12: an unknown action was answered 500 Internal Server Error.
    @Test
    void anUnknownOutboxActionIsABadRequestNamingTheAllowedActions() {
        for (String body : List.of("{\"action\": \"RETRY\"}", "{\"action\": 5}", "{\"action\": \"purge\"}")) {
            Response response = api.post("/actuator/outbox/0190a0b0-0000-7000-8000-000000000000", body);

            assertThat(response.status()).as(body).isEqualTo(400);
            assertThat(response.text("error")).as(body).startsWith("unknown action '")
                    .endsWith("'; allowed: retry, skip, delete");
            assertThat(response.body().path("allowedActions").toString()).as(body)
                    .isEqualTo("[\"retry\",\"skip\",\"delete\"]");
        }

        Response all = api.post("/actuator/outbox", "{\"action\": \"retry\"}");
        assertThat(all.status()).isEqualTo(400);
        assertThat(all.text("error")).isEqualTo("unknown action 'retry'; allowed: retry-all, skip-all, delete-all");
        Response known = api.post("/actuator/outbox/0190a0b0-0000-7000-8000-000000000000", "{\"action\": \"retry\"}");
        assertThat(known.status()).isEqualTo(200);
        assertThat(known.body().path("records").asInt()).as("no such FAILED record").isZero();
    }

    private List<String> recordIds(String orderId) {
        return outboxRecords.findByAggregateId(orderId).stream().map(OutboxRecord::getId).toList();
    }

    private List<String> eventTypes(String orderId) {
        return outboxRecords.findByAggregateId(orderId).stream().map(OutboxRecord::getEventType).toList();
    }

    private long totalOutboxRecords() {
        return Arrays.stream(OutboxRecordStatus.values()).mapToLong(outboxRecords::countByStatus).sum();
    }
}
