package dev.outbox.boot.events.modulith.orders;

import org.springframework.context.ApplicationEventPublisher;
import org.springframework.transaction.annotation.Transactional;

/** The orders module's service: it publishes its events with Spring's API and knows nothing of an outbox. */
public class OrderManagement {

    private final ApplicationEventPublisher events;

    public OrderManagement(ApplicationEventPublisher events) {
        this.events = events;
    }

    // README: publish in a transaction
    @Transactional
    public void confirm(String orderId, int lines) {
        for (int line = 1; line <= lines; line++) {
            events.publishEvent(new OrderConfirmed(orderId, line));
        }
    }
    // README: end

    @Transactional
    public void confirmThenFail(String orderId) {
        events.publishEvent(new OrderConfirmed(orderId, 1));
        throw new IllegalStateException("payment declined");
    }
}
