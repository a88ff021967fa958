package dev.outbox.processing;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.UnreadableRow;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class OutboxProcessorTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private final MutableClock clock = new MutableClock(Instant.parse("2025-06-01T12:00:00Z"));
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final Queue<String> handled = new ConcurrentLinkedQueue<>();
    private final List<OutboxProcessor> processors = new ArrayList<>();

    @AfterEach
    void closeProcessors() {
        processors.forEach(OutboxProcessor::close);
    }

    private OutboxProcessor build(OutboxProcessor.Builder builder) {
        OutboxProcessor processor = builder.build();
        processors.add(processor);
        return processor;
    }

    private OutboxProcessor.Builder processorFor(OutboxRecordProcessor handler) {
        return OutboxProcessor.builder().recordStore(store).handler(handler).clock(clock);
    }

    private static ProcessingOptions options() {
        return ProcessingOptions.defaults().withShutdownTimeout(PATIENCE);
    }

    private OutboxRecord save(String aggregateId, String payload) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("TestEvent").payload(payload)
                .build(clock);
        store.save(record);
        return reload(record);
    }

    private OutboxRecord reload(OutboxRecord record) {
        return store.findById(record.getId()).orElseThrow();
    }

    private List<String> handledOf(String prefix) {
        return handled.stream().filter(p -> p.startsWith(prefix)).toList();
    }

    /** Records the payload; throws for payloads in {@code failing}. */
    private OutboxRecordProcessor recordingHandler(Set<String> failing) {
        return record -> {
            handled.add(record.getPayload());
            if (failing.contains(record.getPayload())) {
                throw new IllegalStateException("boom on " + record.getPayload());
            }
        };
    }

    // ================================================================ ordering and concurrency

    @Test
    void backgroundLoopKeepsPerAggregateOrderHandlesEachRecordOnceAndRunsAggregatesInParallel() {
        int aggregates = 50;
        int recordCount = 1_000;
        int concurrency = 8;
        Random random = new Random(4242);
        Map<String, List<Integer>> inserted = new ConcurrentHashMap<>();
        for (int i = 0; i < recordCount; i++) {
            // The first round gives every aggregate one record so the first batch spans many aggregates.
            int aggregate = i < aggregates ? i : random.nextInt(aggregates);
            String aggregateId = "agg-" + aggregate;
            inserted.computeIfAbsent(aggregateId, k -> new ArrayList<>()).add(i);
            save(aggregateId, aggregateId + ":" + i);
        }

        Map<String, List<Integer>> handledPerAggregate = new ConcurrentHashMap<>();
        Map<String, AtomicInteger> inFlightPerAggregate = new ConcurrentHashMap<>();
        Set<String> seenIds = ConcurrentHashMap.newKeySet();
        AtomicInteger duplicates = new AtomicInteger();
        AtomicInteger sameAggregateOverlaps = new AtomicInteger();
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger maxInFlight = new AtomicInteger();
        // The first `concurrency` invocations wait for each other: they can only all get through if that many
        // aggregates are handled at the same moment.
        CountDownLatch allWorkersBusy = new CountDownLatch(concurrency);
        AtomicBoolean gateTimedOut = new AtomicBoolean();

        OutboxRecordProcessor handler = record -> {
            maxInFlight.accumulateAndGet(inFlight.incrementAndGet(), Math::max);
            AtomicInteger aggregateInFlight =
                    inFlightPerAggregate.computeIfAbsent(record.getAggregateId(), k -> new AtomicInteger());
            if (aggregateInFlight.incrementAndGet() > 1) {
                sameAggregateOverlaps.incrementAndGet();
            }
            try {
                if (!seenIds.add(record.getId())) {
                    duplicates.incrementAndGet();
                }
                String payload = record.getPayload();
                handledPerAggregate.computeIfAbsent(record.getAggregateId(),
                        k -> Collections.synchronizedList(new ArrayList<>()))
                        .add(Integer.parseInt(payload.substring(payload.indexOf(':') + 1)));
                if (allWorkersBusy.getCount() > 0) {
                    allWorkersBusy.countDown();
                    if (!allWorkersBusy.await(PATIENCE.toSeconds(), SECONDS)) {
                        gateTimedOut.set(true);
                    }
                }
            } finally {
                aggregateInFlight.decrementAndGet();
                inFlight.decrementAndGet();
            }
        };
        OutboxProcessor processor = build(processorFor(handler).options(options().withConcurrency(concurrency)
                .withBatchSize(37).withPollInterval(Duration.ofMillis(20))));

        processor.start();
        await().atMost(PATIENCE).untilAsserted(
                () -> assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(recordCount));
        assertThat(processor.stop(PATIENCE)).isTrue();

        assertThat(gateTimedOut).as("%d aggregates were in the handler at once", concurrency).isFalse();
        assertThat(maxInFlight).hasValue(concurrency);
        assertThat(sameAggregateOverlaps).as("records of one aggregate overlapped").hasValue(0);
        assertThat(duplicates).as("records handled twice").hasValue(0);
        assertThat(seenIds).hasSize(recordCount);
        assertThat(handledPerAggregate).hasSize(aggregates);
        inserted.forEach((aggregateId, sequence) -> assertThat(handledPerAggregate.get(aggregateId))
                .as("handling order of %s", aggregateId).containsExactlyElementsOf(sequence));
        assertThat(store.countByStatus(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void processDueRecordsHandlesAllDueRecordsOfOneBatchInOrderAndReportsTheCount() {
        for (int i = 1; i <= 5; i++) {
            save("A", "a" + i);
            save("B", "b" + i);
        }
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).options(options()));

        assertThat(processor.processDueRecords()).isEqualTo(10);
        assertThat(handledOf("a")).containsExactly("a1", "a2", "a3", "a4", "a5");
        assertThat(handledOf("b")).containsExactly("b1", "b2", "b3", "b4", "b5");
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(10);
        assertThat(store.findByStatus(OutboxRecordStatus.COMPLETED, 10))
                .allSatisfy(r -> assertThat(r.getCompletedAt()).isEqualTo(clock.instant()));
        assertThat(processor.processDueRecords()).isZero();
        assertThat(handled).hasSize(10);
    }

    @Test
    void aPassFetchesAtMostBatchSizeRecords() {
        for (int i = 1; i <= 7; i++) {
            save("agg-" + i, "r" + i);
        }
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).options(options().withBatchSize(3)));

        assertThat(processor.processDueRecords()).isEqualTo(3);
        assertThat(handled).containsExactlyInAnyOrder("r1", "r2", "r3");
        assertThat(processor.processDueRecords()).isEqualTo(3);
        assertThat(processor.processDueRecords()).isEqualTo(1);
        assertThat(processor.processDueRecords()).isZero();
    }

    // ================================================================ stop on first failure

    @Test
    void stopOnFirstFailureHoldsBackTheRestOfTheAggregateUntilTheRetrySucceeds() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord b1 = save("B", "b1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord b2 = save("B", "b2");
        OutboxRecord a3 = save("A", "a3");
        OutboxRecord b3 = save("B", "b3");
        Set<String> failing = ConcurrentHashMap.newKeySet();
        failing.add("a2");
        Duration delay = Duration.ofSeconds(10);
        OutboxProcessor processor = build(processorFor(recordingHandler(failing))
                .retryPolicy(OutboxRetryPolicy.fixed(delay)).options(options()));
        assertThat(processor.options().stopOnFirstFailure()).as("default").isTrue();
        Instant firstAttempt = clock.instant();

        assertThat(processor.processDueRecords()).isEqualTo(5);

        assertThat(handledOf("a")).containsExactly("a1", "a2");
        assertThat(handledOf("b")).containsExactly("b1", "b2", "b3");
        assertThat(reload(a1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        OutboxRecord waiting = reload(a2);
        assertThat(waiting.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(waiting.getRetryCount()).isEqualTo(1);
        assertThat(waiting.getNextRetryAt()).isEqualTo(firstAttempt.plus(delay));
        assertThat(waiting.getLastError()).contains("boom on a2").contains("IllegalStateException");
        OutboxRecord heldBack = reload(a3);
        assertThat(heldBack.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(heldBack.getRetryCount()).isZero();
        assertThat(heldBack.getLastError()).isNull();
        for (OutboxRecord b : List.of(b1, b2, b3)) {
            assertThat(reload(b).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        }

        assertThat(processor.processDueRecords()).as("nothing is due before the retry").isZero();
        assertThat(handledOf("a")).containsExactly("a1", "a2");

        failing.clear();
        clock.advance(delay.plusMillis(1));
        assertThat(processor.processDueRecords()).isEqualTo(2);

        assertThat(handledOf("a")).containsExactly("a1", "a2", "a2", "a3");
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(a2).getRetryCount()).isEqualTo(1);
        assertThat(reload(a3).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(a3).getCompletedAt()).isEqualTo(clock.instant());
        assertThat(handledOf("b")).containsExactly("b1", "b2", "b3");
    }

    @Test
    void withoutStopOnFirstFailureLaterRecordsProceedWhileTheFailedOneWaitsForItsRetry() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord a3 = save("A", "a3");
        OutboxRecord b1 = save("B", "b1");
        Set<String> failing = ConcurrentHashMap.newKeySet();
        failing.add("a2");
        OutboxProcessor processor = build(processorFor(recordingHandler(failing))
                .retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(10)))
                .options(options().withStopOnFirstFailure(false)));

        assertThat(processor.processDueRecords()).isEqualTo(4);

        assertThat(handledOf("a")).containsExactly("a1", "a2", "a3");
        assertThat(reload(a1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(reload(a2).getRetryCount()).isEqualTo(1);
        assertThat(reload(a3).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(b1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);

        assertThat(processor.processDueRecords()).isZero();
        failing.clear();
        clock.advance(Duration.ofSeconds(10));
        assertThat(processor.processDueRecords()).isEqualTo(1);
        assertThat(handledOf("a")).containsExactly("a1", "a2", "a3", "a2");
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    // ================================================================ retry timing

    @Test
    void fixedDelayRetryHappensExactlyAtTheDueTimeAndNotBefore() {
        AtomicInteger attempts = new AtomicInteger();
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(r -> {
            attempts.incrementAndGet();
            throw new IOException("broker unavailable");
        }).retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(10)).withMaxRetries(5)).options(options()));

        assertThat(processor.processDueRecords()).isEqualTo(1);
        for (int retry = 1; retry <= 3; retry++) {
            Instant due = clock.instant().plusSeconds(10);
            assertThat(reload(record).getNextRetryAt()).isEqualTo(due);
            assertThat(reload(record).getRetryCount()).isEqualTo(retry);

            clock.set(due.minusMillis(1));
            assertThat(processor.processDueRecords()).as("retry %d one millisecond early", retry).isZero();
            assertThat(attempts).hasValue(retry);

            clock.set(due);
            assertThat(processor.processDueRecords()).as("retry %d at the due time", retry).isEqualTo(1);
            assertThat(attempts).hasValue(retry + 1);
        }
    }

    @Test
    void exponentialRetryWaitsOneTwoFourEightSeconds() {
        AtomicInteger attempts = new AtomicInteger();
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(r -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("still failing");
        }).retryPolicy(OutboxRetryPolicy.exponential(Duration.ofSeconds(1), Duration.ofSeconds(60), 2.0).withMaxRetries(10))
                .options(options()));

        assertThat(processor.processDueRecords()).isEqualTo(1);
        int expectedAttempts = 1;
        for (long seconds : new long[] {1, 2, 4, 8, 16}) {
            Instant due = clock.instant().plusSeconds(seconds);
            assertThat(reload(record).getNextRetryAt()).as("after attempt %d", expectedAttempts).isEqualTo(due);

            clock.set(due.minusMillis(1));
            assertThat(processor.processDueRecords()).isZero();
            assertThat(attempts).hasValue(expectedAttempts);

            clock.set(due);
            assertThat(processor.processDueRecords()).isEqualTo(1);
            assertThat(attempts).hasValue(++expectedAttempts);
        }
    }

    // ================================================================ max retries and FAILED

    @Test
    void withMaxRetriesThreeTheHandlerRunsFourTimesThenTheRecordFailsWithABoundedError() {
        AtomicInteger attempts = new AtomicInteger();
        String hugeMessage = "x".repeat(100_000);
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(r -> {
            attempts.incrementAndGet();
            throw new IllegalStateException(hugeMessage);
        }).retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)).withMaxRetries(3)).options(options()));

        for (int pass = 0; pass < 10 && reload(record).getStatus() == OutboxRecordStatus.NEW; pass++) {
            processor.processDueRecords();
            clock.advance(Duration.ofSeconds(1));
        }

        assertThat(attempts).hasValue(4);
        OutboxRecord failed = reload(record);
        assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(failed.getRetryCount()).isEqualTo(3);
        assertThat(failed.getLastError()).startsWith("java.lang.IllegalStateException: xxxxxxxx")
                .hasSizeLessThanOrEqualTo(OutboxRecord.MAX_ERROR_LENGTH).hasSizeGreaterThan(1_000);

        clock.advance(Duration.ofDays(1));
        assertThat(processor.processDueRecords()).isZero();
        assertThat(attempts).hasValue(4);
    }

    @Test
    void storedErrorTextNeverEndsInHalfASurrogatePair() {
        // Two prefixes of different parity, so that the cut falls once between and once inside a pair.
        OutboxRecord even = save("A", "even");
        OutboxRecord odd = save("B", "odd");
        OutboxProcessor processor = build(processorFor(r -> {
            String prefix = r.getPayload().equals("even") ? "" : "y";
            throw new IllegalStateException(prefix + "😀".repeat(5_000));
        }).retryPolicy(OutboxRetryPolicy.defaults().withMaxRetries(0))
                .options(options()));

        processor.processDueRecords();

        for (OutboxRecord record : List.of(even, odd)) {
            String error = reload(record).getLastError();
            assertThat(error).hasSizeLessThanOrEqualTo(OutboxRecord.MAX_ERROR_LENGTH)
                    .startsWith("java.lang.IllegalStateException: ");
            assertThat(hasUnpairedSurrogate(error)).as("error of %s", record.getPayload()).isFalse();
        }
    }

    private static boolean hasUnpairedSurrogate(String text) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (Character.isHighSurrogate(c)) {
                if (i + 1 >= text.length() || !Character.isLowSurrogate(text.charAt(i + 1))) {
                    return true;
                }
                i++;
            } else if (Character.isLowSurrogate(c)) {
                return true;
            }
        }
        return false;
    }

    @Test
    void withMaxRetriesZeroThereIsExactlyOneAttempt() {
        AtomicInteger attempts = new AtomicInteger();
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(r -> {
            attempts.incrementAndGet();
            throw new IllegalStateException("once");
        }).retryPolicy(OutboxRetryPolicy.fixed(Duration.ZERO).withMaxRetries(0)).options(options()));

        assertThat(processor.processDueRecords()).isEqualTo(1);
        clock.advance(Duration.ofHours(1));
        assertThat(processor.processDueRecords()).isZero();

        assertThat(attempts).hasValue(1);
        OutboxRecord failed = reload(record);
        assertThat(failed.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(failed.getRetryCount()).isZero();
        assertThat(failed.getLastError()).isEqualTo("java.lang.IllegalStateException: once");
    }

    @Test
    void aPolicyThatRefusesTheExceptionFailsTheRecordAfterOneAttempt() {
        OutboxRetryPolicy notForPoison = new OutboxRetryPolicy() {
            @Override
            public boolean shouldRetry(Throwable exception) {
                return !(exception instanceof IllegalArgumentException);
            }

            @Override
            public Duration nextDelay(int retryCount) {
                return Duration.ofSeconds(1);
            }
        };
        OutboxRecord poison = save("A", "poison");
        OutboxRecord transientFailure = save("B", "transient");
        AtomicInteger poisonAttempts = new AtomicInteger();
        OutboxProcessor processor = build(processorFor(r -> {
            if (r.getPayload().equals("poison")) {
                poisonAttempts.incrementAndGet();
                throw new IllegalArgumentException("cannot parse");
            }
            throw new IllegalStateException("try later");
        }).retryPolicy(notForPoison.withMaxRetries(3)).options(options()));

        processor.processDueRecords();
        clock.advance(Duration.ofSeconds(5));
        processor.processDueRecords();

        assertThat(poisonAttempts).hasValue(1);
        assertThat(reload(poison).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(reload(poison).getRetryCount()).isZero();
        assertThat(reload(poison).getLastError()).contains("cannot parse");
        assertThat(reload(transientFailure).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(reload(transientFailure).getRetryCount()).isEqualTo(2);
    }

    @Test
    void aFailedRecordKeepsHoldingBackLaterRecordsOfItsAggregate() {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord b1 = save("B", "b1");
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of("a1")))
                .retryPolicy(OutboxRetryPolicy.defaults().withMaxRetries(0))
                .options(options()));

        processor.processDueRecords();
        for (int i = 0; i < 3; i++) {
            clock.advance(Duration.ofDays(1));
            assertThat(processor.processDueRecords()).isZero();
        }

        assertThat(reload(a1).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(reload(b1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(handled).containsExactlyInAnyOrder("a1", "b1");
    }

    // ================================================================ robustness of the loop

    static int recurseForever(int depth) {
        return recurseForever(depth + 1) + 1;
    }

    @Test
    void checkedExceptionsRuntimeExceptionsAndErrorsNeverKillTheLoop() {
        OutboxRecord checked = save("checked", "checked");
        OutboxRecord runtime = save("runtime", "runtime");
        OutboxRecord overflow = save("overflow", "overflow");
        OutboxRecord assertion = save("assertion", "assertion");
        OutboxRecord fine = save("fine", "fine");
        OutboxProcessor processor = build(processorFor(record -> {
            handled.add(record.getPayload());
            switch (record.getPayload()) {
                case "checked" -> throw new IOException("checked failure");
                case "runtime" -> throw new IllegalStateException("runtime failure");
                case "overflow" -> recurseForever(0);
                case "assertion" -> throw new AssertionError("assertion failure");
                default -> {
                }
            }
        }).retryPolicy(OutboxRetryPolicy.defaults().withMaxRetries(0))
                .options(options().withConcurrency(2).withPollInterval(Duration.ofMillis(20))));

        processor.start();
        await().atMost(PATIENCE).untilAsserted(() -> {
            assertThat(store.countByStatus(OutboxRecordStatus.FAILED)).isEqualTo(4);
            assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(1);
        });
        assertThat(reload(checked).getLastError()).contains("java.io.IOException: checked failure");
        assertThat(reload(runtime).getLastError()).contains("IllegalStateException: runtime failure");
        assertThat(reload(overflow).getLastError()).contains("StackOverflowError");
        assertThat(reload(assertion).getLastError()).contains("AssertionError: assertion failure");
        assertThat(reload(fine).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);

        OutboxRecord later = save("later", "later");
        processor.wakeUp();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(reload(later).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(processor.isRunning()).isTrue();
    }

    @Test
    void storeFailuresAndErrorsWhileFetchingDoNotKillTheLoop() {
        AtomicInteger fetches = new AtomicInteger();
        RecordStore flaky = new ForwardingRecordStore(store) {
            @Override
            public FetchedRows findDue(DueRecordsQuery query) {
                int fetch = fetches.incrementAndGet();
                if (fetch == 1) {
                    throw new IllegalStateException("database down");
                }
                if (fetch == 2) {
                    throw new LinkageError("unexpected error");
                }
                return super.findDue(query);
            }
        };
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).recordStore(flaky)
                .options(options().withPollInterval(Duration.ofMillis(20))));

        processor.start();

        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(reload(record).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(fetches.get()).isGreaterThanOrEqualTo(3);
        assertThat(processor.isRunning()).isTrue();
    }

    // ================================================================ lifecycle

    @Test
    void gracefulStopWaitsForTheRecordInFlightAndLeavesUnstartedRecordsNew() throws Exception {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        OutboxRecord b1 = save("B", "b1");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean stopReturned = new AtomicBoolean();
        AtomicBoolean stopHadReturnedWhileHandling = new AtomicBoolean();
        OutboxProcessor processor = build(processorFor(record -> {
            handled.add(record.getPayload());
            if (record.getPayload().equals("a1")) {
                started.countDown();
                if (!release.await(PATIENCE.toSeconds(), SECONDS)) {
                    throw new TimeoutException("never released");
                }
                stopHadReturnedWhileHandling.set(stopReturned.get());
            }
        }).options(options().withConcurrency(1).withPollInterval(Duration.ofHours(1))));

        processor.start();
        assertThat(started.await(PATIENCE.toSeconds(), SECONDS)).isTrue();

        CompletableFuture<Boolean> stopResult = new CompletableFuture<>();
        Thread stopper = new Thread(() -> {
            boolean drained = processor.stop(Duration.ofSeconds(30));
            stopReturned.set(true);
            stopResult.complete(drained);
        }, "test-stopper");
        stopper.start();
        try {
            // TIMED_WAITING: stop() has flagged the shutdown and is joining the loop thread.
            await().atMost(PATIENCE).until(() -> stopper.getState() == Thread.State.TIMED_WAITING);
            assertThat(processor.isRunning()).isFalse();
            assertThat(stopResult).isNotDone();
        } finally {
            release.countDown();
        }

        assertThat(stopResult.get(PATIENCE.toSeconds(), SECONDS)).isTrue();
        assertThat(stopHadReturnedWhileHandling).as("stop() returned while a record was in flight").isFalse();
        assertThat(reload(a1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(reload(a2).getRetryCount()).isZero();
        assertThat(reload(b1).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(reload(b1).getRetryCount()).isZero();
        assertThat(handled).containsExactly("a1");
    }

    @Test
    void stopWithAShortTimeoutInterruptsAHandlerThatNeverFinishesAndItsRecordStaysNew() throws Exception {
        OutboxRecord a1 = save("A", "a1");
        OutboxRecord a2 = save("A", "a2");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch never = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        AtomicReference<Thread> worker = new AtomicReference<>();
        OutboxProcessor processor = build(processorFor(record -> {
            handled.add(record.getPayload());
            worker.set(Thread.currentThread());
            started.countDown();
            try {
                never.await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
        }).retryPolicy(OutboxRetryPolicy.defaults().withMaxRetries(0))
                .options(options().withConcurrency(1).withPollInterval(Duration.ofHours(1))));

        processor.start();
        assertThat(started.await(PATIENCE.toSeconds(), SECONDS)).isTrue();

        assertThat(processor.stop(Duration.ofMillis(100))).isFalse();

        assertThat(interrupted.await(PATIENCE.toSeconds(), SECONDS)).as("handler was interrupted").isTrue();
        worker.get().join(PATIENCE.toMillis());
        assertThat(worker.get().isAlive()).isFalse();
        assertThat(processor.isRunning()).isFalse();
        assertThat(handled).containsExactly("a1");
        OutboxRecord abandoned = reload(a1);
        assertThat(abandoned.getStatus()).as("a record abandoned by stop() stays NEW").isEqualTo(OutboxRecordStatus.NEW);
        assertThat(abandoned.getRetryCount()).isZero();
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.NEW);

        // ... and is processed again later.
        OutboxProcessor next = build(processorFor(recordingHandler(Set.of())).options(options()));
        assertThat(next.processDueRecords()).isEqualTo(2);
        assertThat(reload(a1).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(a2).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
    }

    @Test
    void stopWithAZeroTimeoutDoesNotWaitForAStuckHandler() throws Exception {
        save("A", "a1");
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch interrupted = new CountDownLatch(1);
        OutboxProcessor processor = build(processorFor(record -> {
            started.countDown();
            try {
                new CountDownLatch(1).await();
            } catch (InterruptedException e) {
                interrupted.countDown();
                throw e;
            }
        }).options(options().withConcurrency(1).withPollInterval(Duration.ofHours(1))));
        processor.start();
        assertThat(started.await(PATIENCE.toSeconds(), SECONDS)).isTrue();

        boolean drained = assertTimeoutPreemptively(PATIENCE, () -> processor.stop(Duration.ZERO));

        assertThat(drained).isFalse();
        assertThat(interrupted.await(PATIENCE.toSeconds(), SECONDS)).isTrue();
    }

    @Test
    void stopWhenNotRunningReturnsTrueAndStartIsIdempotent() {
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of()))
                .options(options().withPollInterval(Duration.ofMillis(20))));
        assertThat(processor.isRunning()).isFalse();
        assertThat(processor.stop(Duration.ofSeconds(1))).isTrue();

        processor.start();
        processor.start();
        assertThat(processor.isRunning()).isTrue();
        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(reload(record).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(handled).containsExactly("a1");
        assertThat(processor.stop(PATIENCE)).isTrue();
        assertThat(processor.isRunning()).isFalse();
    }

    @Test
    void aClosedProcessorCannotBeStarted() {
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).options(options()));
        processor.close();
        assertThatThrownBy(processor::start).isInstanceOf(IllegalStateException.class).hasMessageContaining("closed");
    }

    @Test
    void wakeUpMakesAnIdleLoopPickUpANewRecordPromptly() {
        AtomicInteger fetches = new AtomicInteger();
        RecordStore counting = new ForwardingRecordStore(store) {
            @Override
            public FetchedRows findDue(DueRecordsQuery query) {
                FetchedRows due = super.findDue(query);
                fetches.incrementAndGet();
                return due;
            }
        };
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).recordStore(counting)
                .options(options().withPollInterval(Duration.ofHours(1))));
        processor.start();
        // The first pass has looked at the (empty) table; the loop now sleeps for an hour.
        await().atMost(PATIENCE).until(() -> fetches.get() >= 1);

        OutboxRecord record = save("A", "a1");
        processor.wakeUp();

        await().atMost(PATIENCE)
                .untilAsserted(() -> assertThat(reload(record).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(handled).containsExactly("a1");
    }

    /**
     * Issue 29: rows of a status the library does not know, which no due fetch reads, are looked for at the first
     * fetch and then once a minute, not at every fetch, and failed like the other unreadable rows.
     */
    @Test
    void rowsOfAnUnknownStatusAreLookedForAtTheFirstFetchThenOnceAMinuteAndFailed() {
        AtomicInteger looks = new AtomicInteger();
        List<String> failed = Collections.synchronizedList(new ArrayList<>());
        RecordStore withUnknownStatuses = new ForwardingRecordStore(store) {
            @Override
            public FetchedRows findUnknownStatusRows(OwnedPartitions partitions, int limit) {
                int look = looks.incrementAndGet();
                return new FetchedRows(List.of(), List.of(new UnreadableRow("row-" + look, (long) look, 7, null, "",
                        "Ping", "new", clock.instant(), null, UnreadableRow.Problem.UNKNOWN_STATUS,
                        "status is 'new'")));
            }

            @Override
            public boolean failUnreadable(UnreadableRow row, Fence fence, String lastError) {
                failed.add(row.id());
                return true;
            }
        };
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).recordStore(withUnknownStatuses)
                .options(options()));

        processor.processDueRecords();
        processor.processDueRecords();
        clock.advance(Duration.ofSeconds(59));
        processor.processDueRecords();
        assertThat(looks).as("once in the first minute").hasValue(1);
        assertThat(failed).containsExactly("row-1");

        clock.advance(Duration.ofSeconds(1));
        processor.processDueRecords();
        assertThat(looks).hasValue(2);
        assertThat(failed).containsExactly("row-1", "row-2");
    }

    // ================================================================ listener

    @Test
    void listenerIsToldAboutCompletionsRetriesAndFailuresWithTheRightRecords() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        Map<String, Throwable> thrown = new ConcurrentHashMap<>();
        OutboxListener listener = new OutboxListener() {
            @Override
            public void onCompleted(OutboxRecord record, Duration handlerTime) {
                events.add("completed " + record.getPayload() + (handlerTime.isNegative() ? " negative time" : ""));
            }

            @Override
            public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
                events.add("retry " + record.getPayload() + " #" + retryCount + " (was " + record.getRetryCount()
                        + ") same-error=" + (thrown.get(record.getPayload() + "#" + record.getRetryCount()) == error));
            }

            @Override
            public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
                events.add("failed " + record.getPayload() + " (was " + record.getRetryCount() + ") same-error="
                        + (thrown.get(record.getPayload() + "#" + record.getRetryCount()) == error));
            }

            @Override
            public void onStatusWriteRejected(OutboxRecord record) {
                events.add("rejected " + record.getPayload());
            }
        };
        OutboxRecord ok = save("A", "ok");
        OutboxRecord bad = save("B", "bad");
        OutboxProcessor processor = build(processorFor(record -> {
            if (record.getPayload().equals("bad")) {
                RuntimeException error = new IllegalStateException("attempt " + record.getRetryCount());
                thrown.put("bad#" + record.getRetryCount(), error);
                throw error;
            }
        }).listener(listener).retryPolicy(OutboxRetryPolicy.fixed(Duration.ofSeconds(5)).withMaxRetries(1))
                .options(options()));

        processor.processDueRecords();
        assertThat(events).containsExactlyInAnyOrder("completed ok", "retry bad #1 (was 0) same-error=true");

        events.clear();
        clock.advance(Duration.ofSeconds(5));
        processor.processDueRecords();
        assertThat(events).containsExactly("failed bad (was 1) same-error=true");
        assertThat(reload(ok).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(reload(bad).getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
    }

    @Test
    void aRejectedStatusWriteIsReportedAndNotCountedAsCompleted() {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        RecordStore refusing = new ForwardingRecordStore(store) {
            @Override
            public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
                return deliveries;
            }
        };
        OutboxRecord record = save("A", "a1");
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).recordStore(refusing)
                .listener(new OutboxListener() {
                    @Override
                    public void onCompleted(OutboxRecord r, Duration handlerTime) {
                        events.add("completed " + r.getPayload());
                    }

                    @Override
                    public void onStatusWriteRejected(OutboxRecord r) {
                        events.add("rejected " + r.getPayload());
                    }
                }).options(options()));

        processor.processDueRecords();

        assertThat(events).containsExactly("rejected a1");
        assertThat(reload(record).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    // ================================================================ ownership

    @Test
    void onlyRecordsOfOwnedPartitionsAreProcessed() {
        int p1 = 17;
        int p2 = 230;
        List<OutboxRecord> inP1 = new ArrayList<>();
        List<OutboxRecord> inP2 = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            inP1.add(save(AggregateIds.inPartition(p1, "one-" + i), "p1-" + i));
            inP2.add(save(AggregateIds.inPartition(p2, "two-" + i), "p2-" + i));
        }
        save(AggregateIds.inPartition(99, "other"), "p99");
        AtomicReference<OwnedPartitions> owned = new AtomicReference<>(OwnedPartitions.of(p1));
        OutboxProcessor processor = build(processorFor(recordingHandler(Set.of())).ownership(owned::get)
                .options(options()));

        assertThat(processor.processDueRecords()).isEqualTo(3);
        assertThat(handled).containsExactlyInAnyOrder("p1-0", "p1-1", "p1-2");
        inP1.forEach(r -> assertThat(reload(r).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        inP2.forEach(r -> assertThat(reload(r).getStatus()).isEqualTo(OutboxRecordStatus.NEW));

        owned.set(OwnedPartitions.none());
        assertThat(processor.processDueRecords()).isZero();

        owned.set(OwnedPartitions.of(p2));
        assertThat(processor.processDueRecords()).as("ownership is asked again before every fetch").isEqualTo(3);
        inP2.forEach(r -> assertThat(reload(r).getStatus()).isEqualTo(OutboxRecordStatus.COMPLETED));
        assertThat(handled).hasSize(6).doesNotContain("p99");
    }

    // ================================================================ configuration

    @Nested
    class Configuration {

        @Test
        void builderRequiresAStoreAndAHandler() {
            assertThatThrownBy(() -> OutboxProcessor.builder().handler(r -> { }).build())
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("recordStore");
            assertThatThrownBy(() -> OutboxProcessor.builder().recordStore(store).build())
                    .isInstanceOf(NullPointerException.class).hasMessageContaining("handler");
        }

        @Test
        void defaultsAreTheDocumentedOnes() {
            ProcessingOptions defaults = ProcessingOptions.defaults();
            assertThat(defaults.pollInterval()).isEqualTo(Duration.ofSeconds(2));
            assertThat(defaults.batchSize()).isEqualTo(100);
            assertThat(defaults.stopOnFirstFailure()).isTrue();
            assertThat(defaults.concurrency()).isEqualTo(4);
            assertThat(OutboxRetryPolicy.defaults().maxRetries()).hasValue(3);
            assertThat(defaults.shutdownTimeout()).isEqualTo(Duration.ofSeconds(15));
        }

        @Test
        void invalidOptionsAreRejectedNamingTheProperty() {
            ProcessingOptions defaults = ProcessingOptions.defaults();
            assertThatThrownBy(() -> defaults.withBatchSize(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("outbox.batch-size").hasMessageContaining("0");
            assertThatThrownBy(() -> defaults.withConcurrency(0)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("outbox.processing.concurrency");
            assertThatThrownBy(() -> defaults.withPollInterval(Duration.ZERO))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("outbox.poll-interval");
            assertThatThrownBy(() -> defaults.withShutdownTimeout(Duration.ofSeconds(-1)))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("outbox.instance.graceful-shutdown-timeout-seconds");
            assertThat(defaults.withBatchSize(7).withConcurrency(3).batchSize()).isEqualTo(7);
            assertThat(defaults.batchSize()).as("options are immutable").isEqualTo(100);
        }
    }
}
