package dev.outbox.publish;

import dev.outbox.OutboxRecord;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A broker did not accept a record, and why. The {@link Reason} decides whether a retry can help: a record that can
 * never be published (no destination, too large, not allowed) fails at once, without using its retries; the others
 * are retried by the publisher's retry policy. The message names the destination and the cause: it is stored on the
 * record as its error.
 */
public class PublishException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final Reason reason;

    public PublishException(Reason reason, String message) {
        this(reason, message, null);
    }

    public PublishException(Reason reason, String message, @Nullable Throwable cause) {
        super(message, cause);
        this.reason = Objects.requireNonNull(reason, "reason");
    }

    /** The engine gave up waiting for the acknowledgement of {@code record}. */
    public static PublishException timeout(OutboxRecord record, Duration waited) {
        return new PublishException(Reason.TIMEOUT, "no acknowledgement for record " + record.getId() + " within "
                + waited + "; the broker may have taken it, so a retry may publish it twice");
    }

    public Reason reason() {
        return reason;
    }

    /** Whether trying again can succeed. */
    public boolean isRetryable() {
        return reason.isRetryable();
    }

    /** Why a broker did not accept a record; also the {@code cause} tag of the publisher's failure metric. */
    public enum Reason {
        /** No destination is configured for the record's event type. */
        NO_DESTINATION(false),
        /** The destination (topic, exchange, stream) does not exist. */
        DESTINATION_NOT_FOUND(false),
        /** The broker took the message but could route it nowhere. */
        UNROUTABLE(false),
        /** The message is over the broker's size limit. */
        TOO_LARGE(false),
        /** The broker refused the credentials or the permission to publish there. */
        NOT_AUTHORIZED(false),
        /** No acknowledgement arrived in time: the outcome is unknown. */
        TIMEOUT(true),
        /** The connection failed or was closed before the acknowledgement. */
        CONNECTION(true),
        /** The broker refused the message for a reason that may pass (a negative acknowledgement, a full queue). */
        REJECTED(true);

        private final boolean retryable;

        Reason(boolean retryable) {
            this.retryable = retryable;
        }

        public boolean isRetryable() {
            return retryable;
        }

        /** The metric tag value: {@code no_destination}, {@code timeout}, … */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }
}
