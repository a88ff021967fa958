package dev.outbox.example.orders.event;

import java.util.Arrays;
import java.util.Optional;

/**
 * An event of the order service. The outbox stores it as JSON under its simple class name (the event type), so a
 * processor reads it back with {@link #typeOf(String)}.
 */
public sealed interface OrderEvent permits OrderCreated, OrderUpdated, OrderCancelled {

    /** The order, which is also the aggregate id of the outbox record. */
    String orderId();

    /** The event class stored under {@code eventType}, if it is one of the order events. */
    static Optional<Class<? extends OrderEvent>> typeOf(String eventType) {
        return Arrays.stream(OrderEvent.class.getPermittedSubclasses())
                .filter(type -> type.getSimpleName().equals(eventType))
                .<Class<? extends OrderEvent>>map(type -> type.asSubclass(OrderEvent.class))
                .findFirst();
    }
}
