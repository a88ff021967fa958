package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.Delivery;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** How the engine stores completions: an aggregate's together, or as deletes. Part: {@link OutcomeWriter}. */
class CompletionStorageTest {

    private final MutableClock clock = MutableClock.startingNow();
    /** The aggregate ids of each multi-record completion call. */
    private final List<List<String>> completionCalls = new CopyOnWriteArrayList<>();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final CountingStore countingStore = new CountingStore(store, completionCalls);

    @Test
    void theCompletionsOfOneAggregateAreStoredInOneCall() {
        for (int i = 0; i < 5; i++) {
            save("A", "a" + i);
        }
        save("B", "b0");

        processor(ProcessingOptions.defaults()).processDueRecords();

        // B's completion may share a write with A's (group commit), but A's five are never split.
        assertThat(completionCalls).filteredOn(call -> call.contains("A")).singleElement()
                .satisfies(call -> assertThat(call).filteredOn("A"::equals).hasSize(5));
        assertThat(completionCalls.stream().mapToInt(List::size).sum()).isEqualTo(6);
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(6);
    }

    @Test
    void completionsBeforeAFailureAreStoredAndTheFailureToo() {
        save("A", "a0");
        save("A", "a1");
        save("A", "fails");
        save("A", "a3");

        processor(ProcessingOptions.defaults()).processDueRecords();

        assertThat(completionCalls).containsExactly(List.of("A", "A"));
        assertThat(store.all())
                .extracting(OutboxRecord::getPayload, OutboxRecord::getStatus, OutboxRecord::getRetryCount)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a0", OutboxRecordStatus.COMPLETED, 0),
                        org.assertj.core.groups.Tuple.tuple("a1", OutboxRecordStatus.COMPLETED, 0),
                        org.assertj.core.groups.Tuple.tuple("fails", OutboxRecordStatus.NEW, 1),
                        org.assertj.core.groups.Tuple.tuple("a3", OutboxRecordStatus.NEW, 0));
    }

    @Test
    void withDeleteCompletedRecordsHandledRecordsAreGone() {
        save("A", "a0");
        save("A", "a1");
        save("B", "fails");

        processor(ProcessingOptions.defaults().withDeleteCompletedRecords(true)).processDueRecords();

        assertThat(store.all()).extracting(OutboxRecord::getPayload).containsExactly("fails");
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isZero();
    }

    private OutboxProcessor processor(ProcessingOptions options) {
        return OutboxProcessor.builder()
                .recordStore(countingStore)
                .handler(record -> {
                    if (record.getPayload().equals("fails")) {
                        throw new IllegalStateException("downstream down");
                    }
                })
                .clock(clock)
                .options(options.withPollInterval(Duration.ofHours(1)))
                .build();
    }

    private void save(String aggregateId, String payload) {
        store.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("Test").payload(payload).build(clock));
    }

    /** Records the aggregate ids of every multi-record completion call. */
    private static final class CountingStore extends ForwardingRecordStore {
        private final List<List<String>> calls;

        CountingStore(InMemoryRecordStore delegate, List<List<String>> calls) {
            super(delegate);
            this.calls = calls;
        }

        @Override
        public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
            calls.add(deliveries.stream().map(delivery -> delivery.record().getAggregateId()).toList());
            return new ArrayList<>(super.markCompleted(deliveries, completedAt));
        }
    }
}
