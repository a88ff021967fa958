package dev.outbox.handler;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a public method of a bean as an outbox handler. The method takes the payload, read into the parameter's type,
 * and optionally a {@link RecordMetadata} (or the raw {@link dev.outbox.OutboxRecord}), in any order:
 *
 * <pre>{@code
 * @OutboxHandler(id = "order-mailer", maxRetries = 10, fallback = "mailFailed")
 * public void confirm(OrderPlaced event, RecordMetadata metadata) { ... }
 *
 * public void mailFailed(OutboxRecord record, Throwable failure) { ... }
 * }</pre>
 *
 * @see HandlerRegistration
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface OutboxHandler {

    /**
     * The handler's stable name, stored with each of its records: renaming it orphans them, so it is never derived from
     * the class or method name. Letters, digits, '.', '_', ':' and '-'.
     */
    String id();

    /** The event type subscribed to; default: the simple name of the payload parameter's class. */
    String eventType() default "";

    /** The name of an {@code OutboxRetryPolicy} bean for this handler's records; default: {@code outbox.retry.*}. */
    String retryPolicy() default "";

    /** The most retries of this handler's records; default (-1): the retry policy's own or {@code max-retries}. */
    int maxRetries() default -1;

    /**
     * The name of a public method of the same bean, called when a record of this handler fails for good; it takes any
     * of {@link dev.outbox.OutboxRecord}, {@link RecordMetadata} and {@link Throwable}. See
     * {@link dev.outbox.OutboxFallbackHandler}.
     */
    String fallback() default "";

    /**
     * Whether the handler's effects live in the outbox's own database: it then runs in a transaction of that database
     * with its record's completion, and its writes there commit exactly once, with the completion, or not at all. What
     * it does elsewhere may happen again. See {@link HandlerRegistration.Builder#transactional(boolean)}.
     */
    boolean transactional() default false;
}
