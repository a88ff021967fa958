package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.retry.OutboxRetryPolicy;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a record goes: the handler that processes it, the retry policy its failures are judged by, the fallback
 * that may take it once it has failed for good, and whether the handler runs in a transaction of the records' database
 * with the record's completion. Resolved once per record by {@link HandlerRoutes}.
 *
 * @param handler processes the record; what it throws is the attempt's failure
 * @param retryPolicy the record's own policy, or null for the processor's default policy
 * @param fallback takes a record that has failed for good, or null when nothing does
 * @param publisher set when the records go to a broker: the engine then publishes many lanes' records at once and
 *     waits for their acknowledgements together, one record per lane in flight; {@code handler} publishes one record
 *     and waits, for the paths that take records one at a time
 * @param notDeployed set when no handler of this instance takes the record: why, naming the handlers it has. The
 *     engine then defers the record without calling anything ({@link HandlerNotDeployedException}); {@code handler}
 *     throws that exception, for the paths that call it anyway
 * @param transactional set when the handler's effects live in the records' database: the engine runs it, and many
 *     other records' transactional handlers, in one transaction of that database with the records' fenced
 *     completions ({@link TransactionalWorker}), so that its writes commit exactly when its record completes. Never
 *     set with {@code publisher} or {@code notDeployed}
 */
public record HandlerRoute(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
        @Nullable Fallback fallback, @Nullable OutboxPublisher publisher, @Nullable String notDeployed,
        boolean transactional) {

    public HandlerRoute {
        Objects.requireNonNull(handler, "handler");
        if (transactional && (publisher != null || notDeployed != null)) {
            throw new IllegalArgumentException("transactional: a route to a publisher, or of a handler not deployed, "
                    + "cannot be transactional");
        }
    }

    /** A route that is not transactional. */
    public HandlerRoute(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
            @Nullable Fallback fallback, @Nullable OutboxPublisher publisher, @Nullable String notDeployed) {
        this(handler, retryPolicy, fallback, publisher, notDeployed, false);
    }

    /** A route to a handler or a publisher. */
    public HandlerRoute(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
            @Nullable Fallback fallback, @Nullable OutboxPublisher publisher) {
        this(handler, retryPolicy, fallback, publisher, null);
    }

    /** A route to a one-record handler. */
    public HandlerRoute(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
            @Nullable Fallback fallback) {
        this(handler, retryPolicy, fallback, null);
    }

    /** A route to a publisher. */
    public static HandlerRoute publishingTo(OutboxPublisher publisher, @Nullable OutboxRetryPolicy retryPolicy,
            @Nullable Fallback fallback) {
        return new HandlerRoute(publisher.asProcessor(), retryPolicy, fallback, publisher);
    }

    /**
     * The route of a record no handler of this instance takes, for a newer version of the application to handle:
     * {@code reason} says what the record is addressed to and which handlers this instance has.
     */
    public static HandlerRoute notDeployed(String reason) {
        Objects.requireNonNull(reason, "reason");
        return new HandlerRoute(record -> {
            throw new HandlerNotDeployedException(reason);
        }, null, null, null, reason);
    }

    /**
     * A route to a transactional handler: it runs in a transaction of the records' database together with its
     * record's completion, which needs {@link OutboxProcessor.Builder#recordTransactions}.
     */
    public static HandlerRoute transactional(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
            @Nullable Fallback fallback) {
        return new HandlerRoute(handler, retryPolicy, fallback, null, null, true);
    }

    /** A route to {@code handler}, with the default retry policy and no fallback. */
    public static HandlerRoute to(OutboxRecordProcessor handler) {
        return new HandlerRoute(handler, null, null);
    }

    /**
     * Takes a record that has failed for good. Returning normally stores it as COMPLETED, so the later records of its
     * aggregate go on; throwing leaves it FAILED with both errors.
     */
    @FunctionalInterface
    public interface Fallback {
        void recover(OutboxRecord record, Throwable failure) throws Exception;
    }
}
