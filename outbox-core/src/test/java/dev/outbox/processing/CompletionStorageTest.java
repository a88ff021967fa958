package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
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

    @Test
    void aCompletionWaitsForTheLanesStillBeingWorkedAndIsStoredInTheSameWrite() {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        OutcomeWriter[] writers = new OutcomeWriter[1];
        LaneTable lanes = new LaneTable(() -> writers[0].laneReleased()); // as the processor's table does
        OutcomeWriter writer = new OutcomeWriter(countingStore, PartitionOwnership.allPartitions(),
                OutboxListener.NOOP, clock, ProcessingOptions.defaults(), lanes, Duration.ofMinutes(1));
        writers[0] = writer;
        try {
            // a first lane alone: its write starts the writer thread, which then waits for the next
            save("Z", "z");
            writer.completeAndRelease(completing(claim(lanes, pool)).get(0));
            await().atMost(Duration.ofSeconds(30)).until(() -> completionCalls.size() == 1);
            for (String aggregateId : List.of("A", "B", "C")) {
                save(aggregateId, aggregateId.toLowerCase(Locale.ROOT));
            }
            List<LaneWork> works = completing(claim(lanes, pool));

            writer.completeAndRelease(works.get(0));
            writer.completeAndRelease(works.get(1));
            lanes.release(works.get(2)); // C ends without a completion: nothing more is coming

            await().atMost(Duration.ofSeconds(30)).until(() -> store.countByStatus(OutboxRecordStatus.COMPLETED) == 3);
            assertThat(completionCalls).containsExactly(List.of("Z"), List.of("A", "B"));
        } finally {
            writer.close();
            pool.shutdownNow();
        }
    }

    /** The NEW records' lanes, one record each, taken into hand as a fetch does. */
    private List<LaneWork> claim(LaneTable lanes, ExecutorService pool) {
        Map<Lane, List<OutboxRecord>> fetched = new LinkedHashMap<>();
        store.all().stream().filter(record -> record.getStatus() == OutboxRecordStatus.NEW)
                .forEach(record -> fetched.put(Lane.of(record), List.of(record)));
        lanes.beginFetch();
        return lanes.claim(fetched, (lane, records) -> new LaneWork(lane, List.of(Delivery.unfenced(records.get(0))),
                pool, work -> { })).taken();
    }

    /** The lanes, each with its record completed by the handler. */
    private static List<LaneWork> completing(List<LaneWork> works) {
        works.forEach(work -> work.completions = List.of(new Completion(work.deliveries.get(0), Duration.ZERO)));
        return works;
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
