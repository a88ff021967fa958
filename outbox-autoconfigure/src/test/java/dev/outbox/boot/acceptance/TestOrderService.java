package dev.outbox.boot.acceptance;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import java.time.Clock;
import org.springframework.transaction.annotation.Transactional;

/** A business service that writes an order and its outbox record in one transaction, as applications do. */
public class TestOrderService {

    private final TestOrders orders;
    private final OutboxRecordRepository outbox;
    private final Clock clock;

    public TestOrderService(TestOrders orders, OutboxRecordRepository outbox, Clock clock) {
        this.orders = orders;
        this.outbox = outbox;
        this.clock = clock;
    }

    @Transactional
    public OutboxRecord placeOrder(String orderId, int amount) {
        orders.save(orderId, "PLACED", amount);
        return outbox.save(OutboxRecord.builder()
                .aggregateId(orderId)
                .eventType("OrderPlaced")
                .payload("{\"orderId\":\"" + orderId + "\",\"amount\":" + amount + "}")
                .build(clock));
    }

    /** Writes the order, then an event of its own making in the same transaction. */
    @Transactional
    public OutboxRecord placeOrderWithEvent(String orderId, String aggregateId, String payload) {
        orders.save(orderId, "PLACED", 1);
        return outbox.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("OrderPlaced").payload(payload)
                .build(clock));
    }

    /** Writes both, then fails: the transaction must take both with it. */
    @Transactional
    public void placeOrderThenFail(String orderId, int amount) {
        placeOrder(orderId, amount);
        throw new IllegalStateException("business rule violated after the writes");
    }

    /** Writes one event per call, in the caller's transaction or its own. */
    @Transactional
    public OutboxRecord recordEvent(String aggregateId, String eventType, String payload) {
        return outbox.save(OutboxRecord.builder().aggregateId(aggregateId).eventType(eventType).payload(payload)
                .build(clock));
    }
}
