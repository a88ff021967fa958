package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.UnreadableRow;
import java.time.Duration;
import java.util.concurrent.atomic.LongAdder;

/**
 * The processor's listener: counts the records whose completion was stored, then tells the application's listener of
 * everything. Every worker tells its completions here once they are stored (committed, for a transactional handler),
 * so the count is what this processor handled, whether completed records are kept or deleted.
 */
final class CompletionCount implements OutboxListener {

    private final OutboxListener listener;
    private final LongAdder completed = new LongAdder();

    CompletionCount(OutboxListener listener) {
        this.listener = listener;
    }

    long total() {
        return completed.sum();
    }

    @Override
    public void onCompleted(OutboxRecord record, Duration handlerTime) {
        completed.increment();
        listener.onCompleted(record, handlerTime);
    }

    @Override
    public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
        listener.onRetryScheduled(record, error, retryCount, handlerTime);
    }

    @Override
    public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
        listener.onFailed(record, error, handlerTime);
    }

    @Override
    public void onStatusWriteRejected(OutboxRecord record) {
        listener.onStatusWriteRejected(record);
    }

    @Override
    public void onUnreadableRow(UnreadableRow row, boolean failed) {
        listener.onUnreadableRow(row, failed);
    }

    @Override
    public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
        listener.onPublished(record, acknowledgementTime, duplicate);
    }

    @Override
    public void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
        listener.onPublishFailed(record, failure, time);
    }

    @Override
    public String toString() {
        return listener.toString();
    }
}
