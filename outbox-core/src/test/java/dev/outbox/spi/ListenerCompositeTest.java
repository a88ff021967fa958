package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outbox.OutboxRecord;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** A composite listener tells every listener, in order, whatever one of them throws. */
class ListenerCompositeTest {

    private final List<String> told = new CopyOnWriteArrayList<>();
    private final OutboxRecord record = OutboxRecord.builder().aggregateId("A").eventType("E").payload("{}")
            .build(Clock.systemUTC());

    // GH-12: OutboxListener.composite let a throwing listener keep the later ones from being told.
    @Test
    void aThrowingOutboxListenerKeepsNoOtherFromBeingTold() {
        OutboxListener composite = OutboxListener.composite(List.of(new OutboxListener() {
            @Override
            public void onCompleted(OutboxRecord completed, Duration handlerTime) {
                throw new IllegalStateException("broken metrics");
            }

            @Override
            public void onFailed(OutboxRecord failed, Throwable error, Duration handlerTime) {
                throw new IllegalStateException("broken metrics");
            }
        }, new OutboxListener() {
            @Override
            public void onCompleted(OutboxRecord completed, Duration handlerTime) {
                told.add("completed");
            }

            @Override
            public void onRetryScheduled(OutboxRecord retried, Throwable error, int retryCount,
                    Duration handlerTime) {
                told.add("retry " + retryCount);
            }

            @Override
            public void onFailed(OutboxRecord failed, Throwable error, Duration handlerTime) {
                told.add("failed");
            }

            @Override
            public void onStatusWriteRejected(OutboxRecord rejected) {
                told.add("rejected");
            }
        }));

        assertThatCode(() -> {
            composite.onCompleted(record, Duration.ZERO);
            composite.onRetryScheduled(record, new IllegalStateException(), 2, Duration.ZERO);
            composite.onFailed(record, new IllegalStateException(), Duration.ZERO);
            composite.onStatusWriteRejected(record);
        }).doesNotThrowAnyException();
        assertThat(told).containsExactly("completed", "retry 2", "failed", "rejected");
    }

    @Test
    void aThrowingPartitionListenerKeepsNoOtherFromBeingTold() {
        PartitionListener composite = PartitionListener.composite(List.of(
                (gained, lost) -> {
                    throw new IllegalStateException("broken");
                },
                (gained, lost) -> told.add("gained " + gained + " lost " + lost)));

        composite.onPartitionsChanged(Set.of(1), Set.of(2));

        assertThat(told).containsExactly("gained [1] lost [2]");
    }
}
