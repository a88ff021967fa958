package dev.outbox.example.orders;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.springframework.boot.test.context.SpringBootTest.WebEnvironment.RANDOM_PORT;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.example.orders.event.OrderCreated;
import dev.outbox.example.orders.handling.HandledEvent;
import dev.outbox.example.orders.handling.HandledEventStore;
import dev.outbox.example.orders.handling.OrderEventProcessor;
import dev.outbox.example.orders.order.OrderService;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.test.context.ActiveProfiles;
import tools.jackson.databind.json.JsonMapper;

/** The processor bean on its own: delivery is at least once, so a redelivered record must be stored only once. */
@SpringBootTest(webEnvironment = RANDOM_PORT)
@ActiveProfiles("test")
@ExtendWith(OutputCaptureExtension.class)
class OrderEventProcessorTest {

    @Autowired
    private OrderEventProcessor processor;

    @Autowired
    private HandledEventStore handledEvents;

    @Autowired
    private OrderService orderService;

    @Autowired
    private OutboxRecordRepository outboxRecords;

    @Autowired
    private JsonMapper jsonMapper;

    @Test
    void aRedeliveredRecordIsStoredOnce(CapturedOutput output) {
        String orderId = "redelivery-" + UUID.randomUUID();
        String payload = jsonMapper.writeValueAsString(new OrderCreated(orderId, "judy", new BigDecimal("12.34")));
        OutboxRecord record = OutboxRecord.restore().id(UUID.randomUUID().toString()).aggregateId(orderId)
                .eventType("OrderCreated").payload(payload).createdAt(Instant.now()).sequence(42L).build();

        processor.process(record);
        processor.process(record.toBuilder().retryCount(1).build()); // the same record, delivered again

        assertThat(handledEvents.countByRecordId(record.getId())).isEqualTo(1);
        List<HandledEvent> handled = handledEvents.findByAggregateId(orderId);
        assertThat(handled).singleElement().satisfies(event -> {
            assertThat(event.recordId()).isEqualTo(record.getId());
            assertThat(event.eventType()).isEqualTo("OrderCreated");
            assertThat(event.payload()).isEqualTo(payload);
            assertThat(event.sequence()).isEqualTo(42L);
        });
        assertThat(output).contains("Handling OrderCreated for order " + orderId + " (sequence 42, attempt 1)")
                .contains("Handling OrderCreated for order " + orderId + " (sequence 42, attempt 2)")
                .contains("Outbox record " + record.getId() + " was handled before; redelivery ignored");
    }

    @Test
    void aRecordRedeliveredAfterTheOutboxHandledItKeepsItsFirstHandling() {
        String orderId = orderService.create("kim", new BigDecimal("7.00")).getId();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(handledEvents.findByAggregateId(orderId)).hasSize(1));
        HandledEvent first = handledEvents.findByAggregateId(orderId).get(0);
        OutboxRecord record = outboxRecords.findByAggregateId(orderId).get(0);

        processor.process(record);

        assertThat(handledEvents.findByAggregateId(orderId)).containsExactly(first);
    }

    @Test
    void aRecordOfAnUnknownEventTypeFailsAndIsNotStored() {
        String orderId = "unknown-" + UUID.randomUUID();
        OutboxRecord record = OutboxRecord.restore().id(UUID.randomUUID().toString()).aggregateId(orderId)
                .eventType("OrderShipped").payload("{}").createdAt(Instant.now()).sequence(1L).build();

        assertThatThrownBy(() -> processor.process(record))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("OrderShipped");
        assertThat(handledEvents.findByAggregateId(orderId)).isEmpty();
    }
}
