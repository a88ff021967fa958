package dev.outbox.example.jdbc;

import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/** Confirms placed orders: a typed handler, called once the order's transaction has committed. */
@Component
public class Confirmations {

    private static final Logger log = LoggerFactory.getLogger(Confirmations.class);

    private final List<String> confirmed = new CopyOnWriteArrayList<>();

    @OutboxHandler(id = "order-confirmation")
    public void confirm(OrderPlaced order, RecordMetadata metadata) {
        log.info("Order {} of {} confirmed (record {}, attempt {})", order.orderId(), order.customer(),
                metadata.getId(), metadata.getAttempt());
        confirmed.add(order.orderId());
    }

    /** The orders confirmed so far, in order. */
    public List<String> confirmed() {
        return List.copyOf(confirmed);
    }
}
