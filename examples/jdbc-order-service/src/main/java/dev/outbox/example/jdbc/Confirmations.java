package dev.outbox.example.jdbc;

import dev.outbox.handler.OutboxHandler;
import dev.outbox.handler.RecordMetadata;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
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
        synchronized (confirmed) {
            confirmed.add(order.orderId());
            confirmed.notifyAll();
        }
    }

    /** Waits until {@code count} orders are confirmed, at most {@code patience}; returns those confirmed by then. */
    public List<String> awaitConfirmed(int count, Duration patience) throws InterruptedException {
        long deadline = System.nanoTime() + patience.toNanos();
        synchronized (confirmed) {
            long left;
            while (confirmed.size() < count && (left = deadline - System.nanoTime()) > 0) {
                TimeUnit.NANOSECONDS.timedWait(confirmed, left);
            }
            return List.copyOf(confirmed);
        }
    }

    /** The orders confirmed so far, in order. */
    public List<String> confirmed() {
        return List.copyOf(confirmed);
    }
}
