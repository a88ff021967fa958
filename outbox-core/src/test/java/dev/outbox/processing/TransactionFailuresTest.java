package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.TransactionNotBegunException;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Transactions of transactional handlers that fail for a reason of their own, not a handler's nor the fence's: one
 * record that makes the commit fail is one fault, its record's, while a transaction that could not begin is nobody's.
 * Each handler's effect (a record it saves through the same in-memory store, marked {@code Effect}) must commit once
 * with its record's completion, or not at all. Part: {@link TransactionalWorker}, {@link TransactionPart}.
 */
class TransactionFailuresTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String HANDLER_ID = "ledger";
    private static final String EFFECT = "Effect";
    private static final Function<OutboxRecord, Object> PAYLOAD = OutboxRecord::getPayload;
    private static final Function<OutboxRecord, Object> STATUS = OutboxRecord::getStatus;
    private static final Function<OutboxRecord, Object> RETRIES = OutboxRecord::getRetryCount;

    private final MutableClock clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));
    private final InMemoryRecordStore store = new InMemoryRecordStore(new InMemoryClusterStore(clock));
    /** Handler calls by payload, the calls of rolled-back transactions included. */
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    private final AtomicInteger transactionsBegun = new AtomicInteger();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<OutboxProcessor> processors = new ArrayList<>();

    private final OutboxListener listener = new OutboxListener() {
        @Override
        public void onCompleted(OutboxRecord record, Duration handlerTime) {
            events.add("completed " + record.getPayload());
        }

        @Override
        public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
            events.add("retry " + record.getPayload());
        }

        @Override
        public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
            events.add("failed " + record.getPayload());
        }
    };

    @AfterEach
    void closeProcessors() {
        processors.forEach(OutboxProcessor::close);
    }

    @Test
    void aRecordThatMakesTheCommitFailIsOneFaultAndTheRestOfTheBatchCommitsOnce() {
        save("A", "a0");
        save("A", "a1");
        save("B", "b0");
        save("B", "b1");
        save("B", "b2");
        save("C", "c0");
        save("C", "c1");
        OutboxProcessor processor = build(failingToCommitWith("b1"), OutboxRetryPolicy.fixed(Duration.ZERO)
                .withMaxRetries(1));

        processor.processDueRecords();

        assertThat(handledRecords()).extracting(PAYLOAD, STATUS, RETRIES).containsExactly(
                tuple("a0", OutboxRecordStatus.COMPLETED, 0),
                tuple("a1", OutboxRecordStatus.COMPLETED, 0),
                tuple("b0", OutboxRecordStatus.COMPLETED, 0),
                tuple("b1", OutboxRecordStatus.NEW, 1),
                tuple("b2", OutboxRecordStatus.NEW, 0),
                tuple("c0", OutboxRecordStatus.COMPLETED, 0),
                tuple("c1", OutboxRecordStatus.COMPLETED, 0));
        assertThat(effects()).as("each once, none of the poison record or of the one after it")
                .containsExactlyInAnyOrder("a0", "a1", "b0", "c0", "c1");
        assertThat(events).containsExactlyInAnyOrder("completed a0", "completed a1", "completed b0", "completed c0",
                "completed c1", "retry b1");
        assertThat(handledRecords()).filteredOn(record -> record.getPayload().equals("b1"))
                .extracting(OutboxRecord::getLastError).singleElement().asString().contains("deferred constraint");

        processor.processDueRecords(); // its last retry: due at once

        assertThat(handledRecords()).filteredOn(record -> record.getPayload().startsWith("b"))
                .extracting(PAYLOAD, STATUS, RETRIES).containsExactly(
                tuple("b0", OutboxRecordStatus.COMPLETED, 0),
                tuple("b1", OutboxRecordStatus.FAILED, 1),
                tuple("b2", OutboxRecordStatus.NEW, 0));
        assertThat(effects()).containsExactlyInAnyOrder("a0", "a1", "b0", "c0", "c1");
        assertThat(events).contains("failed b1");
    }

    @Test
    void aPoisonRecordInTheMiddleOfItsLaneLetsTheRecordBeforeItCompleteAndHoldsBackTheOneAfterIt() {
        save("A", "a0");
        save("A", "a1");
        save("A", "a2");

        build(failingToCommitWith("a1"), OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(0))
                .processDueRecords();

        assertThat(handledRecords()).extracting(PAYLOAD, STATUS, RETRIES).containsExactly(
                tuple("a0", OutboxRecordStatus.COMPLETED, 0),
                tuple("a1", OutboxRecordStatus.FAILED, 0),
                tuple("a2", OutboxRecordStatus.NEW, 0));
        assertThat(effects()).containsExactly("a0");
        assertThat(events).containsExactlyInAnyOrder("completed a0", "failed a1");
    }

    @Test
    void aTransactionThatCouldNotBeginLeavesEveryRecordAsItWasForALaterPass() {
        save("A", "a0");
        save("A", "a1");
        save("B", "b0");
        save("C", "c0");
        AtomicBoolean databaseDown = new AtomicBoolean(true);
        RecordTransactions transactions = work -> {
            transactionsBegun.incrementAndGet();
            if (databaseDown.get()) {
                throw new TransactionNotBegunException("no connection", new IllegalStateException("refused"));
            }
            store.inTransaction(work);
        };
        OutboxProcessor processor = build(transactions, OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(0));

        processor.processDueRecords();

        assertThat(handledRecords()).extracting(PAYLOAD, STATUS, RETRIES).containsExactly(
                tuple("a0", OutboxRecordStatus.NEW, 0),
                tuple("a1", OutboxRecordStatus.NEW, 0),
                tuple("b0", OutboxRecordStatus.NEW, 0),
                tuple("c0", OutboxRecordStatus.NEW, 0));
        assertThat(effects()).isEmpty();
        assertThat(calls).isEmpty();
        assertThat(events).isEmpty();
        assertThat(transactionsBegun).as("the batch ends at the first").hasValue(1);

        databaseDown.set(false);
        processor.processDueRecords();

        assertThat(handledRecords()).extracting(STATUS).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(effects()).containsExactlyInAnyOrder("a0", "a1", "b0", "c0");
        assertThat(calls.values()).allSatisfy(count -> assertThat(count).hasValue(1));
    }

    @Test
    void aPoisonBatchTakesAboutTwoTransactionsPerHalvingAndNotOnePerPassForever() {
        int aggregates = 16;
        int perAggregate = 4; // 64 records: log2 = 6 halvings
        for (int i = 0; i < perAggregate; i++) {
            for (int a = 0; a < aggregates; a++) {
                save("agg-" + a, "r" + a + "-" + i);
            }
        }

        build(failingToCommitWith("r5-2"), OutboxRetryPolicy.fixed(Duration.ofMinutes(1)).withMaxRetries(3))
                .processDueRecords();

        assertThat(transactionsBegun.get()).as("the batch, then per halving the failing half and the other")
                .isLessThanOrEqualTo(2 * 6 + 1);
        assertThat(handledRecords()).filteredOn(record -> !record.getPayload().startsWith("r5-")).hasSize(60)
                .extracting(STATUS).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(handledRecords()).filteredOn(record -> record.getPayload().startsWith("r5-"))
                .extracting(PAYLOAD, STATUS, RETRIES).containsExactly(
                        tuple("r5-0", OutboxRecordStatus.COMPLETED, 0),
                        tuple("r5-1", OutboxRecordStatus.COMPLETED, 0),
                        tuple("r5-2", OutboxRecordStatus.NEW, 1),
                        tuple("r5-3", OutboxRecordStatus.NEW, 0));
        assertThat(effects()).hasSize(62).doesNotHaveDuplicates().doesNotContain("r5-2", "r5-3");
    }

    // ================================================================ fixture

    /**
     * Transactions that fail at commit, after running the work, whenever {@code poison}'s handler ran in them, as a
     * deferred constraint its handler broke would: the whole transaction rolls back.
     */
    private RecordTransactions failingToCommitWith(String poison) {
        return work -> {
            transactionsBegun.incrementAndGet();
            store.inTransaction(() -> {
                int before = callsOf(poison);
                work.run();
                if (callsOf(poison) > before) {
                    throw new IllegalStateException("commit failed: deferred constraint violated by " + poison);
                }
            });
        };
    }

    private int callsOf(String payload) {
        AtomicInteger count = calls.get(payload);
        return count == null ? 0 : count.get();
    }

    private OutboxProcessor build(RecordTransactions transactions, OutboxRetryPolicy retryPolicy) {
        OutboxHandlers handlers = OutboxHandlers.builder().deserializer((payload, type) -> payload)
                .handler(HandlerRegistration.builder(HANDLER_ID, String.class).transactional(true)
                        .retryPolicy(retryPolicy).handler((payload, metadata) -> handle(payload)).build())
                .build();
        OutboxProcessor processor = OutboxProcessor.builder().recordStore(store).recordTransactions(transactions)
                .routes(handlers).listener(listener).clock(clock)
                .options(ProcessingOptions.defaults().withShutdownTimeout(PATIENCE)
                        .withPollInterval(Duration.ofHours(1)).withConcurrency(1)) // a fetch: one transaction
                .build();
        processors.add(processor);
        return processor;
    }

    /** Saves the record's effect in the handler's transaction. */
    private void handle(String payload) {
        calls.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
        store.save(OutboxRecord.builder().aggregateId("effects").eventType(EFFECT).payload(payload).build(clock)
                .toBuilder().status(OutboxRecordStatus.COMPLETED).build());
    }

    private void save(String aggregateId, String payload) {
        store.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("String").handlerId(HANDLER_ID)
                .payload(payload).build(clock));
    }

    /** The handled records (not the effects), in the order saved. */
    private List<OutboxRecord> handledRecords() {
        return store.all().stream().filter(record -> !record.getEventType().equals(EFFECT)).toList();
    }

    /** The payloads of the effects committed, in the order they were saved. */
    private List<String> effects() {
        return store.all().stream().filter(record -> record.getEventType().equals(EFFECT))
                .map(OutboxRecord::getPayload).toList();
    }
}
