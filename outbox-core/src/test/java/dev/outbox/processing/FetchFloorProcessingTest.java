package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.RecordStore;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fetch floor in the running processor ({@link FetchFloor}, whose rules {@code FetchFloorTest} drives with times of
 * its own): once fetches from the start are slow, a record that turns up below the floor (one whose commit the store
 * hides until the floor has passed it, as a transaction that took its sequence early and committed late; a retry
 * falling due) is still handled, once, and before the later records of its aggregate.
 */
class FetchFloorProcessingTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore records = new InMemoryRecordStore();
    private final Map<String, AtomicInteger> callsPerRecord = new ConcurrentHashMap<>();
    private final Set<String> hidden = ConcurrentHashMap.newKeySet();
    private final AtomicLong highestFloor = new AtomicLong(-1);
    private final AtomicInteger fetchesWithAFloor = new AtomicInteger();
    private final AtomicInteger readingsOfTheHighestAssigned = new AtomicInteger();
    private final ScheduledExecutorService writer = Executors.newSingleThreadScheduledExecutor();
    private OutboxProcessor processor;

    @AfterEach
    void stop() {
        writer.shutdownNow();
        if (processor != null) {
            processor.close();
        }
    }

    @Test
    void aRecordCommittedBelowTheFloorIsHandledOnceByAFetchFromTheStart() {
        OutboxRecord late = save("late");
        hidden.add(late.getId());
        AtomicInteger written = new AtomicInteger();
        writer.scheduleAtFixedRate(() -> save("flow-" + written.incrementAndGet() % 50), 0, 10, TimeUnit.MILLISECONDS);
        processor = processor(store(Duration.ofMillis(20)));

        processor.start();
        await().atMost(PATIENCE).until(() -> highestFloor.get() > late.getSequence());
        int floorsBefore = fetchesWithAFloor.get();
        hidden.remove(late.getId()); // committed now, below the floor

        await().atMost(PATIENCE).until(() -> status(late) == OutboxRecordStatus.COMPLETED);
        writer.shutdownNow();
        await().atMost(PATIENCE).until(() -> records.countByStatus(OutboxRecordStatus.NEW) == 0);
        assertThat(fetchesWithAFloor.get()).as("fetches kept starting at a floor").isGreaterThan(floorsBefore);
        assertThat(readingsOfTheHighestAssigned).as("the highest sequence handed out read while the floor was on")
                .hasPositiveValue();
        assertThat(callsPerRecord).hasSize(written.get() + 1);
        assertThat(callsPerRecord.values()).allSatisfy(calls -> assertThat(calls).hasValue(1));
    }

    @Test
    void aRetryFallingDueBelowTheFloorStillGoesBeforeTheLaterRecordsOfItsAggregate() {
        List<String> callsOfX = new CopyOnWriteArrayList<>();
        AtomicBoolean failedOnce = new AtomicBoolean();
        OutboxRecord x1 = save("X");
        AtomicInteger written = new AtomicInteger();
        writer.scheduleAtFixedRate(() -> save("flow-" + written.incrementAndGet() % 50), 0, 10, TimeUnit.MILLISECONDS);
        processor = processor(store(Duration.ofMillis(20)), record -> {
            if (record.getAggregateId().equals("X")) {
                callsOfX.add(record.getId());
                if (!failedOnce.getAndSet(true)) {
                    throw new IllegalStateException("x1 fails once; its retry is due in an hour");
                }
            }
        });

        processor.start();
        await().atMost(PATIENCE).until(() -> highestFloor.get() > x1.getSequence());
        OutboxRecord x2 = save("X");
        OutboxRecord x3 = save("X");
        clock.advance(Duration.ofHours(1)); // x1 is due again, below the floor; x2 and x3 above it for a lag
        int floorsBefore = fetchesWithAFloor.get();

        await().atMost(PATIENCE).until(() -> status(x3) == OutboxRecordStatus.COMPLETED);
        assertThat(fetchesWithAFloor.get()).as("fetches kept starting at a floor").isGreaterThan(floorsBefore);
        assertThat(callsOfX).containsExactly(x1.getId(), x1.getId(), x2.getId(), x3.getId());
    }

    /** The records, slow to read from the start, with the hidden ones left out. */
    private RecordStore store(Duration slowFromTheStart) {
        return new ForwardingRecordStore(records) {
            @Override
            public OptionalLong highestAssignedSequence() {
                readingsOfTheHighestAssigned.incrementAndGet();
                return super.highestAssignedSequence();
            }

            @Override
            public FetchedRows findDue(DueRecordsQuery query) {
                Long floor = query.fromSequence();
                if (floor == null) {
                    sleep(slowFromTheStart); // a walk over the entries of records finished meanwhile
                } else {
                    fetchesWithAFloor.incrementAndGet();
                    highestFloor.accumulateAndGet(floor, Math::max);
                }
                FetchedRows due = super.findDue(query);
                List<OutboxRecord> visible = due.records().stream()
                        .filter(record -> !hidden.contains(record.getId())).toList();
                return new FetchedRows(visible, due.unreadable());
            }
        };
    }

    private OutboxProcessor processor(RecordStore store) {
        return processor(store, record -> { });
    }

    private OutboxProcessor processor(RecordStore store, OutboxRecordProcessor handler) {
        return OutboxProcessor.builder()
                .recordStore(store)
                .handler(record -> {
                    callsPerRecord.computeIfAbsent(record.getId(), id -> new AtomicInteger()).incrementAndGet();
                    handler.process(record);
                })
                .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofHours(1)))
                .clock(clock)
                .options(ProcessingOptions.defaults().withPollInterval(Duration.ofMillis(100))
                        .withShutdownTimeout(PATIENCE))
                .build();
    }

    private OutboxRecord save(String aggregateId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("Test").payload("{}")
                .build(clock);
        records.save(record);
        return records.findById(record.getId()).orElseThrow(); // as stored, with its sequence
    }

    private OutboxRecordStatus status(OutboxRecord record) {
        return records.findById(record.getId()).orElseThrow().getStatus();
    }

    private static void sleep(Duration duration) {
        try {
            Thread.sleep(duration.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
