package dev.outbox.benchmark.node;

import dev.outbox.OutboxRecord;
import dev.outbox.spi.OutboxListener;
import java.time.Duration;

/** Counts the outcomes the engine reports: completions the store accepted, retries, failures, refused writes. */
final class CountingListener implements OutboxListener {

    private final NodeState state;

    CountingListener(NodeState state) {
        this.state = state;
    }

    @Override
    public void onCompleted(OutboxRecord record, Duration handlerTime) {
        state.completed.incrementAndGet();
    }

    @Override
    public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
        state.retries.incrementAndGet();
    }

    @Override
    public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
        state.failed.incrementAndGet();
    }

    @Override
    public void onStatusWriteRejected(OutboxRecord record) {
        state.rejected.incrementAndGet();
    }
}
