package dev.outbox.events;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks an event class for the outbox: every instance published as a Spring application event inside a transaction
 * is written as an outbox record in that transaction, and goes to the handlers and publishers of its event type as if
 * it had been scheduled through {@link dev.outbox.Outbox}. On a superclass or an interface it marks every event class
 * below it (a sealed hierarchy of events, say); each is typed by its own class.
 *
 * <pre>{@code
 * @OutboxEvent(aggregateId = "orderId")
 * public record OrderPlaced(String orderId, BigDecimal total) {
 * }
 * }</pre>
 */
@Documented
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
public @interface OutboxEvent {

    /**
     * A SpEL expression evaluated on the event that gives its aggregate id: {@code orderId} (a getter, a record
     * component or a Kotlin property), {@code #this.customer().id()}, {@code 'order-' + orderId}. Its value's
     * {@code toString()} is the aggregate id; null is refused.
     */
    String aggregateId();

    /** The event type; empty (the default) takes the outbox's, by default the class's simple name. */
    String eventType() default "";
}
