package dev.outbox.spi;

import dev.outbox.OutboxRecord;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.LoggerFactory;

/**
 * Observes processing, for metrics and logs. Called on worker threads; must be fast and must not throw. Every method
 * has a no-op default, so implement only what you need.
 */
public interface OutboxListener {

    /** A listener that does nothing. */
    OutboxListener NOOP = new OutboxListener() {
    };

    /** The handler completed the record. */
    default void onCompleted(OutboxRecord record, Duration handlerTime) {
    }

    /** The handler failed and the record will be retried as number {@code retryCount}. */
    default void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
    }

    /** The handler failed and the record is now {@code FAILED}. */
    default void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
    }

    /** A status write was refused because the row was changed by someone else. */
    default void onStatusWriteRejected(OutboxRecord record) {
    }

    /**
     * A row that cannot be read as a record was marked {@code FAILED} ({@code failed}), or left as it is because no
     * write can reach it (its id or partition cannot be read), which is told once per row.
     *
     * @since 0.1.0
     */
    default void onUnreadableRow(UnreadableRow row, boolean failed) {
    }

    /**
     * A publisher's broker acknowledged the record ({@link OutboxRecord#getHandlerId()} is the publisher's id); its
     * completion is stored next. Called for records published in batches.
     *
     * @param acknowledgementTime from the send to the acknowledgement
     * @param duplicate the broker recognised the record as one it already held and dropped this copy
     */
    default void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
    }

    /** A publisher's attempt failed; what becomes of the record is told next ({@link #onRetryScheduled}, …). */
    default void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
    }

    /**
     * One listener that forwards every call to each of {@code listeners}, in order; one that throws is logged and does
     * not keep the others from being told, nor fails the record.
     */
    static OutboxListener composite(List<? extends OutboxListener> listeners) {
        List<OutboxListener> copy = List.copyOf(listeners);
        if (copy.isEmpty()) {
            return NOOP;
        }
        return new OutboxListener() {
            @Override
            public void onCompleted(OutboxRecord record, Duration handlerTime) {
                tellEach(listener -> listener.onCompleted(record, handlerTime));
            }

            @Override
            public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
                tellEach(listener -> listener.onRetryScheduled(record, error, retryCount, handlerTime));
            }

            @Override
            public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
                tellEach(listener -> listener.onFailed(record, error, handlerTime));
            }

            @Override
            public void onStatusWriteRejected(OutboxRecord record) {
                tellEach(listener -> listener.onStatusWriteRejected(record));
            }

            @Override
            public void onUnreadableRow(UnreadableRow row, boolean failed) {
                tellEach(listener -> listener.onUnreadableRow(row, failed));
            }

            @Override
            public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
                tellEach(listener -> listener.onPublished(record, acknowledgementTime, duplicate));
            }

            @Override
            public void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
                tellEach(listener -> listener.onPublishFailed(record, failure, time));
            }

            private void tellEach(Consumer<OutboxListener> call) {
                for (OutboxListener listener : copy) {
                    try {
                        call.accept(listener);
                    } catch (RuntimeException e) {
                        LoggerFactory.getLogger(OutboxListener.class).warn("Outbox listener {} failed", listener, e);
                    }
                }
            }
        };
    }
}
