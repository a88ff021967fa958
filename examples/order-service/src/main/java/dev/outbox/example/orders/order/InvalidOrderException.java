package dev.outbox.example.orders.order;

/**
 * The request breaks a rule on its values (a non-positive amount, a blank customer, ...). Nothing is written.
 * Answered with HTTP 400.
 */
public class InvalidOrderException extends RuntimeException {

    public InvalidOrderException(String message) {
        super(message);
    }
}
