package dev.outbox.example.orders.order;

/**
 * The operation does not fit the order's current state: it is cancelled, or the caller's version is stale. Thrown
 * inside the transaction, so neither the order change nor its outbox event is written. Answered with HTTP 409.
 */
public class OrderConflictException extends RuntimeException {

    private final String orderId;

    public OrderConflictException(String orderId, String message) {
        super(message);
        this.orderId = orderId;
    }

    public String getOrderId() {
        return orderId;
    }
}
