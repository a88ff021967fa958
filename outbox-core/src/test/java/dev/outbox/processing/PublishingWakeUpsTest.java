package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How often a publishing batch wakes the poll loop: the lane table is built here with a counting {@code onRelease}
 * (the loop's waiter in the processor), and the batch is run on the test's thread up to its wait for acknowledgements.
 */
class PublishingWakeUpsTest {

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final AtomicInteger wakeUps = new AtomicInteger();
    private final LaneTable lanes = new LaneTable(wakeUps::incrementAndGet);
    private final List<CompletableFuture<Object>> unacknowledged = new CopyOnWriteArrayList<>();
    private final OutboxPublisher broker = record -> {
        CompletableFuture<Object> acknowledgement = new CompletableFuture<>();
        unacknowledged.add(acknowledgement);
        return acknowledgement;
    };
    private final OutboxHandlers routes = OutboxHandlers.builder()
            .publisher(PublisherRegistration.builder("broker", broker).build()).build();
    private final ProcessingOptions options = ProcessingOptions.defaults();
    private final OutcomeWriter outcomes = new OutcomeWriter(store, PartitionOwnership.allPartitions(),
            OutboxListener.NOOP, clock, options, lanes);
    private final PublishingWorker worker = new PublishingWorker(routes, PartitionOwnership.allPartitions(),
            OutboxObservation.NOOP, OutboxListener.NOOP, new LaneFailures(new FailureDecision(
                    OutboxRetryPolicy.defaults(), options), outcomes, OutboxListener.NOOP, clock, false),
            outcomes, lanes);
    private final ExecutorService pool = Executors.newFixedThreadPool(2);

    @AfterEach
    void close() {
        worker.close();
        outcomes.close();
        pool.shutdownNow();
    }

    @Test
    void aBurstOfSendsMarksItsLanesWaitingWithOneWakeUpOfTheLoop() {
        Map<Lane, List<OutboxRecord>> fetched = new LinkedHashMap<>();
        for (int aggregate = 0; aggregate < 100; aggregate++) {
            OutboxRecord record = store.save(OutboxRecord.builder().aggregateId("agg-" + aggregate).eventType("E")
                    .handlerId("broker").payload("agg-" + aggregate + "/1").build(clock));
            fetched.put(Lane.of(record), List.of(record));
        }
        lanes.beginFetch();
        List<LaneWork> taken = lanes.claim(fetched, (lane, records) -> new LaneWork(lane,
                records.stream().map(Delivery::unfenced).toList(), pool, work -> { })).taken();
        HandlerRoute route = routes.routeFor(taken.get(0).deliveries.get(0).record());

        worker.run(new PublishBatch(route, taken, pool, worker::run)); // returns once it waits for acknowledgements

        assertThat(unacknowledged).hasSize(100);
        assertThat(lanes.recordsWaiting()).isEqualTo(100);
        assertThat(lanes.recordsInWork()).isZero();
        assertThat(wakeUps).as("one wake-up for the burst of 100 sends, not one per record").hasValue(1);

        unacknowledged.forEach(acknowledgement -> acknowledgement.complete(null));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> store.countByStatus(OutboxRecordStatus.COMPLETED) == 100 && lanes.recordsInHand() == 0);
        assertThat(lanes.recordsWaiting()).isZero();
    }
}
