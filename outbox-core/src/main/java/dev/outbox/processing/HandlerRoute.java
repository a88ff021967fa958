package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.retry.OutboxRetryPolicy;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Where a record goes: the handler that processes it, the retry policy its failures are judged by, and the fallback
 * that may take it once it has failed for good. Resolved once per record by {@link HandlerRoutes}.
 *
 * @param handler processes the record; what it throws is the attempt's failure
 * @param retryPolicy the record's own policy, or null for the processor's default policy
 * @param fallback takes a record that has failed for good, or null when nothing does
 */
public record HandlerRoute(OutboxRecordProcessor handler, @Nullable OutboxRetryPolicy retryPolicy,
        @Nullable Fallback fallback) {

    public HandlerRoute {
        Objects.requireNonNull(handler, "handler");
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
