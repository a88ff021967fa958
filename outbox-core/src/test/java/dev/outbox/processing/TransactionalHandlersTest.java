package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Transactional handlers: each handler's effect in the records' database (here a record it saves through the same
 * in-memory store, marked {@code Effect}) commits with its record's completion, once, or not at all. Part:
 * {@link TransactionalWorker}.
 */
class TransactionalHandlersTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String HANDLER_ID = "ledger";
    private static final String EFFECT = "Effect";

    private final MutableClock clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final InMemoryRecordStore store = new InMemoryRecordStore(cluster);
    /** Handler calls by payload, the calls of rolled-back runs included. */
    private final Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    /** Payloads whose handler throws, after saving its effect. */
    private final Set<String> failing = ConcurrentHashMap.newKeySet();
    private final AtomicInteger transactionsBegun = new AtomicInteger();
    /** The number of deliveries of each completion write. */
    private final List<Integer> completionWrites = new CopyOnWriteArrayList<>();
    private final List<String> events = new CopyOnWriteArrayList<>();
    private final List<OutboxProcessor> processors = new ArrayList<>();

    private final RecordTransactions countingTransactions = work -> {
        transactionsBegun.incrementAndGet();
        store.inTransaction(work);
    };

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
        public void onStatusWriteRejected(OutboxRecord record) {
            events.add("rejected " + record.getPayload());
        }
    };

    @AfterEach
    void closeProcessors() {
        processors.forEach(OutboxProcessor::close);
    }

    @Test
    void theEffectsOfManyAggregatesCommitOnceWithTheirCompletionsInOneTransaction() {
        for (String aggregate : List.of("A", "B", "C")) {
            for (int i = 0; i < 3; i++) {
                save(aggregate, aggregate.toLowerCase(Locale.ROOT) + i);
            }
        }

        process(builder());

        assertThat(statuses()).allSatisfy((payload, status) -> assertThat(status).as(payload)
                .isEqualTo(OutboxRecordStatus.COMPLETED)).hasSize(9);
        assertThat(effects()).containsExactlyInAnyOrder("a0", "a1", "a2", "b0", "b1", "b2", "c0", "c1", "c2");
        assertThat(effects()).filteredOn(effect -> effect.startsWith("b")).as("in the aggregate's order")
                .containsExactly("b0", "b1", "b2");
        assertThat(transactionsBegun).hasValue(1);
        assertThat(completionWrites).containsExactly(9);
        assertThat(calls.values()).allSatisfy(count -> assertThat(count).hasValue(1));
        assertThat(events).hasSize(9).allMatch(event -> event.startsWith("completed "));
    }

    @Test
    void aTransactionTakesAtMostTheGroupSize() {
        for (int i = 0; i < 250; i++) {
            save("agg-" + (i % 50), "r" + i);
        }

        process(builder().options(options().withBatchSize(250).withTransactionGroupSize(100)));

        assertThat(statuses().values()).hasSize(250).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(effects()).hasSize(250).doesNotHaveDuplicates();
        assertThat(transactionsBegun.get()).isGreaterThanOrEqualTo(3).isEqualTo(completionWrites.size());
        assertThat(completionWrites).allSatisfy(size -> assertThat(size).isBetween(1, 100));
        assertThat(completionWrites.stream().mapToInt(Integer::intValue).sum()).isEqualTo(250);
    }

    @Test
    void aFetchsLanesAreSpreadOverAsManyTransactionsAsWorkers() {
        for (int i = 0; i < 100; i++) {
            save("agg-" + (i % 20), "r" + i);
        }

        process(builder().options(options().withConcurrency(4)));

        assertThat(statuses().values()).hasSize(100).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(effects()).hasSize(100).doesNotHaveDuplicates();
        assertThat(completionWrites).as("a transaction per worker, each of whole lanes of 5 records")
                .containsExactly(25, 25, 25, 25);
        assertThat(transactionsBegun).hasValue(4);
    }

    @Test
    void aLaneLongerThanTheGroupRunsItsFirstRecordsAndLeavesTheRestForTheNextFetch() {
        for (int i = 0; i < 150; i++) {
            save("A", "a" + i);
        }
        OutboxProcessor processor = build(builder().options(options().withBatchSize(200)
                .withTransactionGroupSize(100)));

        processor.processDueRecords();

        assertThat(completionWrites).containsExactly(100);
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(100 + 100); // with the effects
        assertThat(statuses().get("a99")).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(statuses().get("a100")).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(processor.isHandling(partitionOf("A"))).as("the lane is released").isFalse();

        processor.processDueRecords();

        assertThat(statuses().values()).containsOnly(OutboxRecordStatus.COMPLETED);
        assertThat(effects()).hasSize(150).doesNotHaveDuplicates();
    }

    @Test
    void aHandlerFailureRollsBackAndTheRestOfTheGroupCommitsWithoutTheFailingRecordAndWhatFollowsIt() {
        save("A", "a0");
        save("A", "a1");
        save("B", "b0");
        save("B", "b1");
        save("B", "b2");
        save("C", "c0");
        failing.addAll(Set.of("b1", "c0"));

        process(builder());

        assertThat(store.all()).filteredOn(record -> !record.getEventType().equals(EFFECT))
                .extracting(OutboxRecord::getPayload, OutboxRecord::getStatus, OutboxRecord::getRetryCount)
                .containsExactly(
                        tuple("a0", OutboxRecordStatus.COMPLETED, 0),
                        tuple("a1", OutboxRecordStatus.COMPLETED, 0),
                        tuple("b0", OutboxRecordStatus.COMPLETED, 0),
                        tuple("b1", OutboxRecordStatus.NEW, 1),
                        tuple("b2", OutboxRecordStatus.NEW, 0),
                        tuple("c0", OutboxRecordStatus.NEW, 1));
        assertThat(effects()).as("each once, none of a failed or a later record").containsExactlyInAnyOrder("a0",
                "a1", "b0");
        assertThat(transactionsBegun).as("failing at b1, then at c0, then committed").hasValue(3);
        assertThat(calls.get("a0")).as("run again after each rollback").hasValue(3);
        assertThat(calls.get("b1")).hasValue(1);
        assertThat(calls).doesNotContainKey("b2");
        assertThat(events).containsExactlyInAnyOrder("completed a0", "completed a1", "completed b0", "retry b1",
                "retry c0");
    }

    @Test
    void aRefusedCompletionRollsBackItsLaneFromThatRecordOnAndTheOtherLanesCommit() {
        save("A", "a0");
        save("B", "b0");
        save("B", "b1");
        save("B", "b2");
        RecordStore refusingB1 = new ForwardingRecordStore(store) {
            @Override
            public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
                List<Delivery> refused = deliveries.stream().filter(d -> d.record().getPayload().equals("b1"))
                        .toList();
                List<Delivery> notStored = new ArrayList<>(super.markCompleted(deliveries.stream()
                        .filter(d -> !refused.contains(d)).toList(), completedAt));
                notStored.addAll(refused);
                return notStored;
            }
        };
        List<Fence> lost = new CopyOnWriteArrayList<>();

        process(builder().recordStore(refusingB1).ownership(new PartitionOwnership() {
            @Override
            public OwnedPartitions ownedPartitions() {
                return OwnedPartitions.all();
            }

            @Override
            public void lost(Fence fence) {
                lost.add(fence);
            }
        }));

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("a0", OutboxRecordStatus.COMPLETED,
                "b0", OutboxRecordStatus.COMPLETED, "b1", OutboxRecordStatus.NEW, "b2", OutboxRecordStatus.NEW));
        assertThat(effects()).containsExactlyInAnyOrder("a0", "b0");
        assertThat(events).containsExactlyInAnyOrder("rejected b1", "completed a0", "completed b0");
        assertThat(lost).extracting(Fence::partition).containsExactly(partitionOf("B"));
        assertThat(transactionsBegun).hasValue(2);
    }

    @Test
    void aPartitionThatMovesDuringTheTransactionTakesItsEffectsBackAndLeavesItsRecordsNew() {
        String staying = AggregateIds.inPartition(17, "staying");
        String moving = AggregateIds.inPartition(230, "moving");
        assertThat(cluster.claim(17, 0, "me", PATIENCE)).isTrue();
        assertThat(cluster.claim(230, 0, "me", PATIENCE)).isTrue();
        AtomicReference<OwnedPartitions> owned = new AtomicReference<>(OwnedPartitions.fenced("me",
                Map.of(17, 1L, 230, 1L)));
        save(staying, "s0");
        save(moving, "m0");
        save(moving, "m1");
        AtomicBoolean moved = new AtomicBoolean();
        RecordTransactions movingOnce = work -> countingTransactions.inTransaction(() -> {
            if (moved.compareAndSet(false, true)) { // another instance takes the partition meanwhile
                assertThat(cluster.release(230, 1, "me")).isTrue();
                assertThat(cluster.claim(230, 1, "other", PATIENCE)).isTrue();
            }
            work.run();
        });

        process(builder().recordTransactions(movingOnce).ownership(new PartitionOwnership() {
            @Override
            public OwnedPartitions ownedPartitions() {
                return owned.get();
            }

            @Override
            public void lost(Fence fence) {
                owned.set(OwnedPartitions.fenced("me", Map.of(17, 1L)));
            }
        }));

        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("s0", OutboxRecordStatus.COMPLETED,
                "m0", OutboxRecordStatus.NEW, "m1", OutboxRecordStatus.NEW));
        assertThat(effects()).containsExactly("s0");
        assertThat(events).containsExactlyInAnyOrder("rejected m0", "rejected m1", "completed s0");
        assertThat(owned.get().contains(230)).isFalse();
        assertThat(transactionsBegun).hasValue(2);
    }

    @Test
    void withDeleteCompletedRecordsTheRowsAreDeletedInTheTransaction() {
        save("A", "a0");
        save("A", "a1");
        save("B", "b0");
        failing.add("b0");

        process(builder().options(options().withDeleteCompletedRecords(true)));

        assertThat(statuses()).containsExactly(Map.entry("b0", OutboxRecordStatus.NEW));
        assertThat(effects()).containsExactlyInAnyOrder("a0", "a1");
        assertThat(transactionsBegun).hasValue(2);
    }

    @ParameterizedTest(name = "delete completed records: {0}")
    @ValueSource(booleans = {false, true})
    void aTransactionThatFailsToCommitAsTheDatabaseGoesDownLeavesNoEffectAndItsRecordsNewForALaterPass(
            boolean deleteCompleted) {
        save("A", "a0");
        save("A", "a1");
        save("B", "b0");
        AtomicBoolean databaseDown = new AtomicBoolean(true);
        RecordTransactions failingCommit = work -> countingTransactions.inTransaction(() -> {
            work.run();
            if (databaseDown.get()) {
                throw new IllegalStateException("connection lost at commit");
            }
        });
        RecordStore down = new ForwardingRecordStore(countingCompletions(store)) { // nor can a failure be stored
            @Override
            public boolean scheduleRetry(Delivery delivery, int retryCount, Instant nextRetryAt, String lastError) {
                if (databaseDown.get()) {
                    throw new IllegalStateException("connection refused");
                }
                return super.scheduleRetry(delivery, retryCount, nextRetryAt, lastError);
            }
        };
        OutboxProcessor processor = build(builder().recordStore(down).recordTransactions(failingCommit)
                .options(options().withDeleteCompletedRecords(deleteCompleted)));

        assertThat(processor.processDueRecords()).isEqualTo(3);

        assertThat(store.all()).filteredOn(record -> !record.getEventType().equals(EFFECT))
                .extracting(OutboxRecord::getStatus, OutboxRecord::getRetryCount)
                .containsOnly(tuple(OutboxRecordStatus.NEW, 0)).hasSize(3);
        assertThat(effects()).isEmpty();
        assertThat(processor.isHandling(partitionOf("A"))).isFalse();
        assertThat(processor.isHandling(partitionOf("B"))).isFalse();
        assertThat(events).isEmpty();

        databaseDown.set(false);
        processor.processDueRecords();

        if (deleteCompleted) {
            assertThat(statuses()).isEmpty();
        } else {
            assertThat(statuses().values()).hasSize(3).containsOnly(OutboxRecordStatus.COMPLETED);
        }
        assertThat(effects()).containsExactlyInAnyOrder("a0", "a1", "b0");
        assertThat(events).containsExactlyInAnyOrder("completed a0", "completed a1", "completed b0");
    }

    @Test
    void aFallbackThatTakesAFailedRecordCompletesItOutsideTheTransaction() {
        save("A", "a0");
        save("B", "b0");
        save("B", "b1");
        failing.add("b0");
        List<String> recovered = new CopyOnWriteArrayList<>();
        OutboxHandlers handlers = handlers(HandlerRegistration.builder(HANDLER_ID, String.class).transactional(true)
                .retryPolicy(OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(0))
                .fallback((record, failure) -> {
                    recovered.add(record.getPayload() + ": " + failure.getMessage());
                    store.save(effect("fallback " + record.getPayload()));
                }));
        OutboxProcessor processor = build(builder().routes(handlers));

        processor.processDueRecords();

        assertThat(recovered).containsExactly("b0: boom on b0");
        assertThat(statuses()).containsExactlyInAnyOrderEntriesOf(Map.of("a0", OutboxRecordStatus.COMPLETED,
                "b0", OutboxRecordStatus.COMPLETED, "b1", OutboxRecordStatus.NEW));
        assertThat(effects()).containsExactlyInAnyOrder("a0", "fallback b0");
        assertThat(events).containsExactlyInAnyOrder("completed a0", "completed b0");

        processor.processDueRecords();

        assertThat(statuses().get("b1")).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(effects()).containsExactlyInAnyOrder("a0", "fallback b0", "b1");
    }

    @Test
    void aProcessorWithATransactionalHandlerAndNoRecordTransactionsIsNotBuilt() {
        OutboxHandlers handlers = handlers(HandlerRegistration.builder(HANDLER_ID, String.class).transactional(true));

        assertThatThrownBy(() -> OutboxProcessor.builder().recordStore(store).routes(handlers).build())
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("[" + HANDLER_ID + "]")
                .hasMessageContaining("recordTransactions");
        assertThat(handlers.transactionalHandlerIds()).containsExactly(HANDLER_ID);
        OutboxHandlers plain = handlers(HandlerRegistration.builder(HANDLER_ID, String.class));
        assertThat(plain.anyTransactional()).isFalse();
        build(OutboxProcessor.builder().recordStore(store).routes(plain)); // needs none
    }

    @Test
    void theGroupSizeIsCheckedAndShownAndARouteToAPublisherIsNeverTransactional() {
        ProcessingOptions defaults = ProcessingOptions.defaults();
        assertThat(defaults.transactionGroupSize()).isEqualTo(100);
        assertThat(defaults.withTransactionGroupSize(1000).toString()).contains("transactionGroupSize=1000");
        assertThatThrownBy(() -> defaults.withTransactionGroupSize(1001)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("outbox.processing.transaction-group-size must be between 1 and 1000 but was 1001");
        assertThatThrownBy(() -> defaults.withTransactionGroupSize(0))
                .hasMessageContaining("outbox.processing.transaction-group-size");
        assertThat(HandlerRoute.transactional(record -> { }, null, null).transactional()).isTrue();
        assertThat(HandlerRoute.to(record -> { }).transactional()).isFalse();
        assertThatThrownBy(() -> new HandlerRoute(record -> { }, null, null,
                record -> CompletableFuture.completedFuture(null), null, true))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("publisher");
        assertThat(HandlerRegistration.builder(HANDLER_ID, String.class).transactional(true).handler((e, m) -> { })
                .build().toString()).contains("transactional");
    }

    // ================================================================ fixture

    private OutboxHandlers handlers(HandlerRegistration.Builder<String> registration) {
        return OutboxHandlers.builder().deserializer((payload, type) -> payload)
                .handler(registration.handler((payload, metadata) -> handle(payload)).build()).build();
    }

    /** Saves the record's effect, then throws for the failing payloads: the effect must vanish with the rollback. */
    private void handle(String payload) {
        calls.computeIfAbsent(payload, p -> new AtomicInteger()).incrementAndGet();
        store.save(effect(payload));
        if (failing.contains(payload)) {
            throw new IllegalStateException("boom on " + payload);
        }
    }

    private OutboxRecord effect(String payload) {
        return OutboxRecord.builder().aggregateId("effects").eventType(EFFECT).payload(payload).build(clock)
                .toBuilder().status(OutboxRecordStatus.COMPLETED).build();
    }

    /** Counts the deliveries of each completion write. */
    private RecordStore countingCompletions(RecordStore delegate) {
        return new ForwardingRecordStore(delegate) {
            @Override
            public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
                completionWrites.add(deliveries.size());
                return super.markCompleted(deliveries, completedAt);
            }

            @Override
            public List<Delivery> deleteCompleted(List<Delivery> deliveries) {
                completionWrites.add(deliveries.size());
                return super.deleteCompleted(deliveries);
            }
        };
    }

    private OutboxProcessor.Builder builder() {
        return OutboxProcessor.builder().recordStore(countingCompletions(store))
                .recordTransactions(countingTransactions)
                .routes(handlers(HandlerRegistration.builder(HANDLER_ID, String.class).transactional(true)))
                .listener(listener).clock(clock).options(options());
    }

    /** One worker: a fetch's lanes then go to one transaction, as the tests count them. */
    private static ProcessingOptions options() {
        return ProcessingOptions.defaults().withShutdownTimeout(PATIENCE).withPollInterval(Duration.ofHours(1))
                .withConcurrency(1);
    }

    private OutboxProcessor build(OutboxProcessor.Builder builder) {
        OutboxProcessor processor = builder.build();
        processors.add(processor);
        return processor;
    }

    private void process(OutboxProcessor.Builder builder) {
        build(builder).processDueRecords();
    }

    private void save(String aggregateId, String payload) {
        store.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("String").handlerId(HANDLER_ID)
                .payload(payload).build(clock));
    }

    /** The statuses of the handled records (not of the effects) by payload. */
    private Map<String, OutboxRecordStatus> statuses() {
        Map<String, OutboxRecordStatus> statuses = new LinkedHashMap<>();
        store.all().stream().filter(record -> !record.getEventType().equals(EFFECT))
                .forEach(record -> statuses.put(record.getPayload(), record.getStatus()));
        return statuses;
    }

    /** The payloads of the effects committed, in the order they were saved. */
    private List<String> effects() {
        return store.all().stream().filter(record -> record.getEventType().equals(EFFECT))
                .map(OutboxRecord::getPayload).toList();
    }

    private static int partitionOf(String aggregateId) {
        return PartitionHasher.partitionOf(aggregateId);
    }
}
