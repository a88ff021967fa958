package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublishException.Reason;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The batch path to a publisher, against a broker double that acknowledges asynchronously, on its own thread, when the
 * publisher is flushed. Parts: {@link PublishingWorker}, {@link PublishBatch}, the dispatcher's grouping.
 */
class PublishingTest {

    private static final String PUBLISHER_ID = "broker";

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final FakeBroker broker = new FakeBroker();
    private final List<String> published = new CopyOnWriteArrayList<>();
    private final List<String> duplicates = new CopyOnWriteArrayList<>();
    private final List<Reason> failures = new CopyOnWriteArrayList<>();
    private final List<String> mailed = new CopyOnWriteArrayList<>();
    private @Nullable OutboxProcessor processor;

    @AfterEach
    void close() {
        if (processor != null) {
            processor.close();
        }
        broker.close();
    }

    @Test
    void manyAggregatesAreInFlightAtOnceButNeverTwoRecordsOfOneAggregate() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.defaults(), Set.of());
        for (int sequence = 1; sequence <= 3; sequence++) {
            for (int aggregate = 0; aggregate < 200; aggregate++) {
                save(outbox, "agg-" + aggregate, sequence);
            }
        }

        assertThat(processor.processDueRecords()).as("one fetch, lanes of three records").isEqualTo(600);

        assertThat(store.findByStatus(OutboxRecordStatus.COMPLETED, 1000)).hasSize(600);
        assertThat(broker.maxInFlight).as("the heads of all aggregates wait for their acknowledgements together")
                .isEqualTo(200);
        assertThat(broker.maxInFlightOfOneAggregate).isEqualTo(1);
        assertThat(broker.acceptedByAggregate()).hasSize(200)
                .allSatisfy((aggregate, payloads) -> assertThat(payloads).containsExactly(
                        aggregate + "/1", aggregate + "/2", aggregate + "/3"));
        assertThat(published).hasSize(600);
    }

    @Test
    void aRefusedRecordIsRetriedAndNoLaterRecordOfItsAggregateOvertakesIt() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)).withMaxRetries(5),
                Set.of());
        for (int sequence = 1; sequence <= 4; sequence++) {
            save(outbox, "A", sequence);
            save(outbox, "B", sequence);
        }
        AtomicInteger refusals = new AtomicInteger();
        broker.script = record -> record.getPayload().equals("A/2") && refusals.getAndIncrement() < 2
                ? new PublishException(Reason.REJECTED, "queue full") : null;

        processor.processDueRecords();

        assertThat(broker.acceptedByAggregate().get("A")).as("A/3 is never sent while A/2 is unacknowledged")
                .containsExactly("A/1");
        assertThat(broker.acceptedByAggregate().get("B")).containsExactly("B/1", "B/2", "B/3", "B/4");
        OutboxRecord refused = store.findByAggregateId("A").get(1);
        assertThat(refused.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(refused.getRetryCount()).isEqualTo(1);
        assertThat(refused.getLastError()).contains("queue full");

        for (int round = 0; round < 3; round++) {
            clock.advance(Duration.ofSeconds(1));
            processor.processDueRecords();
        }

        assertThat(broker.acceptedByAggregate().get("A")).containsExactly("A/1", "A/2", "A/3", "A/4");
        assertThat(failures).containsExactly(Reason.REJECTED, Reason.REJECTED);
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(8);
    }

    @Test
    void aRecordThatCanNeverBePublishedFailsAtOnceAndHoldsBackOnlyItsAggregate() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)).withMaxRetries(5),
                Set.of());
        save(outbox, "A", 1);
        save(outbox, "A", 2);
        save(outbox, "B", 1);
        broker.script = record -> record.getPayload().equals("A/1")
                ? new PublishException(Reason.TOO_LARGE, "2 MiB over the 1 MiB limit of topic orders") : null;

        drain();

        OutboxRecord tooLarge = store.findByAggregateId("A").get(0);
        assertThat(tooLarge.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(tooLarge.getRetryCount()).isZero();
        assertThat(tooLarge.getLastError()).contains("over the 1 MiB limit of topic orders");
        assertThat(store.findByAggregateId("A").get(1).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(broker.acceptedByAggregate()).containsOnlyKeys("B");
    }

    @Test
    void aPublisherThatThrowsAtOnceFailsTheRecordWithItsMessage() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.defaults(), Set.of());
        save(outbox, "A", 1);
        broker.refuseAtOnce = new PublishException(Reason.NO_DESTINATION, "no Kafka topic for event type 'E'");

        processor.processDueRecords();

        OutboxRecord record = store.findByAggregateId("A").get(0);
        assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(record.getLastError()).contains("no Kafka topic for event type 'E'");
        assertThat(failures).containsExactly(Reason.NO_DESTINATION);
    }

    @Test
    void anAcknowledgementThatNeverComesIsARetryableTimeoutAndALateOneIsIgnored() {
        broker.acknowledgementTimeout = Duration.ofMillis(200);
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.fixed(Duration.ofSeconds(1)).withMaxRetries(5),
                Set.of());
        save(outbox, "A", 1);
        save(outbox, "A", 2);
        broker.holdBack = Set.of("A/1");

        processor.processDueRecords();

        OutboxRecord first = store.findByAggregateId("A").get(0);
        assertThat(first.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(first.getRetryCount()).isEqualTo(1);
        assertThat(first.getLastError()).contains("no acknowledgement for record " + first.getId());
        assertThat(broker.sent).as("A/2 waits for A/1").containsExactly("A/1");

        broker.holdBack = Set.of();
        broker.releaseHeldBack(); // the late acknowledgement of the first attempt
        clock.advance(Duration.ofSeconds(1));
        drain();

        assertThat(broker.sent).containsExactly("A/1", "A/1", "A/2");
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(2);
        assertThat(failures).containsExactly(Reason.TIMEOUT);
    }

    @Test
    void aDuplicateTheBrokerDroppedCountsAsPublishedAndIsReported() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.defaults(), Set.of());
        save(outbox, "A", 1);
        broker.duplicates = Set.of("A/1");

        drain();

        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(1);
        assertThat(duplicates).containsExactly("A/1");
    }

    @Test
    void aRecordOfAnEventTypeThePublisherNoLongerTakesFailsWithoutBeingSent() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.defaults(), Set.of("E"));
        save(outbox, "A", 1);
        processor.close();
        processor = processor(OutboxRetryPolicy.defaults(), Set.of("Other"));

        processor.processDueRecords();

        OutboxRecord record = store.findByAggregateId("A").get(0);
        assertThat(record.getStatus()).isEqualTo(OutboxRecordStatus.FAILED);
        assertThat(record.getLastError()).contains("addressed to publisher 'broker', which publishes [Other]");
        assertThat(broker.sent).isEmpty();
    }

    @Test
    void aGracefulStopWaitsForTheAcknowledgementsInFlight() {
        OutboxRecordRepository outbox = start(OutboxRetryPolicy.defaults(), Set.of());
        for (int aggregate = 0; aggregate < 50; aggregate++) {
            save(outbox, "agg-" + aggregate, 1);
        }
        broker.ackDelay = Duration.ofMillis(300);
        processor.start();
        broker.awaitSent(1);

        assertThat(processor.stop(Duration.ofSeconds(30))).isTrue();

        int sent = broker.sent.size();
        assertThat(sent).isPositive();
        assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).as("every record sent was acknowledged and "
                + "stored before the stop returned").isEqualTo(sent);
    }

    @Test
    void aDestinationThatNeverAcknowledgesHoldsBackNoOtherLaneOfItsBatch() { // issue 29
        broker.acknowledgementTimeout = Duration.ofSeconds(60); // the records below cannot complete by a timeout
        broker.holdBack = Set.of("stuck/1");
        OutboxRecordRepository outbox = startInBackground(ProcessingOptions.DEFAULT_CONCURRENCY);
        save(outbox, "stuck", 1);
        save(outbox, "stuck", 2);
        for (int aggregate = 0; aggregate < 10; aggregate++) {
            save(outbox, "agg-" + aggregate, 1);
            save(outbox, "agg-" + aggregate, 2);
        }

        processor.start();

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                store.countByStatus(OutboxRecordStatus.COMPLETED)).as("stored while stuck/1 is in flight")
                .isEqualTo(20));
        for (int aggregate = 0; aggregate < 10; aggregate++) {
            save(outbox, "agg-" + aggregate, 3);
        }
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                store.countByStatus(OutboxRecordStatus.COMPLETED)).as("the other lanes were released: their next "
                        + "records are taken while stuck/1 is still in flight").isEqualTo(30));
        OutboxRecord stuck = store.findByAggregateId("stuck").get(0);
        assertThat(stuck.getStatus()).isEqualTo(OutboxRecordStatus.NEW);
        assertThat(stuck.getRetryCount()).as("not timed out").isZero();
        assertThat(broker.sent).as("stuck/2 waits for stuck/1").doesNotContain("stuck/2");
    }

    @Test
    void aBatchWaitingForAnAcknowledgementHoldsNoWorker() { // issue 29
        broker.acknowledgementTimeout = Duration.ofSeconds(60);
        broker.holdBack = Set.of("stuck/1");
        OutboxRecordRepository outbox = startInBackground(1);
        save(outbox, "stuck", 1);
        processor.start();
        broker.awaitSent(1);

        for (int aggregate = 0; aggregate < 5; aggregate++) {
            outbox.save(OutboxRecord.builder().aggregateId("mail-" + aggregate).eventType("Mail")
                    .payload("mail-" + aggregate).build(clock));
            save(outbox, "agg-" + aggregate, 1);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(mailed).as("the handler's records run on the only worker").hasSize(5);
            assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).as("and so do the publisher's next "
                    + "batches").isEqualTo(10);
        });
        assertThat(store.findByAggregateId("stuck").get(0).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    void recordsWaitingForAcknowledgementsKeepTheLoopFromFetchingNoOtherRecords() { // issue 29
        broker.acknowledgementTimeout = Duration.ofSeconds(60);
        Set<String> stuck = new HashSet<>();
        OutboxRecordRepository outbox = startInBackground(ProcessingOptions.DEFAULT_CONCURRENCY);
        int batchSize = processor.options().batchSize();
        for (int aggregate = 0; aggregate < batchSize; aggregate++) { // twice the half batch the loop waits for
            save(outbox, "stuck-" + aggregate, 1);
            stuck.add("stuck-" + aggregate + "/1");
        }
        broker.holdBack = stuck;
        processor.start();
        broker.awaitSent(batchSize);

        for (int aggregate = 0; aggregate < 5; aggregate++) {
            outbox.save(OutboxRecord.builder().aggregateId("mail-" + aggregate).eventType("Mail")
                    .payload("mail-" + aggregate).build(clock));
            save(outbox, "agg-" + aggregate, 1);
        }

        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            assertThat(mailed).hasSize(5);
            assertThat(store.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(10);
        });
        assertThat(store.countByStatus(OutboxRecordStatus.NEW)).as("still in flight").isEqualTo(batchSize);
    }

    @Test
    void moreRecordsThanOneFetchAreInFlightWhileTheBrokerConfirms() { // issue 31
        broker.acknowledgementTimeout = Duration.ofSeconds(60);
        Set<String> unconfirmed = new HashSet<>();
        OutboxRecordRepository outbox = startInBackground(ProcessingOptions.DEFAULT_CONCURRENCY, 10);
        for (int aggregate = 0; aggregate < 300; aggregate++) {
            save(outbox, "agg-" + aggregate, 1);
            unconfirmed.add("agg-" + aggregate + "/1");
        }
        broker.holdBack = unconfirmed;
        processor.start();

        // one fetch reads 15 rows (a batch and a half): the fetches read past the records in flight
        broker.awaitSent(PollLoop.MAX_BATCHES_IN_HAND * 10 / 2);
        assertThat(broker.sent).as("within ten batches in hand, plus one fetch").hasSizeLessThanOrEqualTo(115)
                .doesNotHaveDuplicates();

        broker.holdBack = Set.of();
        await().atMost(Duration.ofSeconds(30)).until(() -> {
            broker.releaseHeldBack(); // again: one may have been held back as the set changed
            return store.countByStatus(OutboxRecordStatus.COMPLETED) == 300;
        });
        assertThat(broker.sent).hasSize(300).doesNotHaveDuplicates();
    }

    @Test
    void aStopThatGivesUpEndsTheBatchesWaitingForAcknowledgements() {
        broker.acknowledgementTimeout = Duration.ofSeconds(60);
        broker.holdBack = Set.of("stuck/1");
        OutboxRecordRepository outbox = startInBackground(ProcessingOptions.DEFAULT_CONCURRENCY);
        save(outbox, "stuck", 1);
        save(outbox, "agg-0", 1);
        processor.start();
        await().atMost(Duration.ofSeconds(10)).until(() -> store.countByStatus(OutboxRecordStatus.COMPLETED) == 1);

        assertThat(processor.stop(Duration.ofMillis(200))).as("stuck/1 is still unacknowledged").isFalse();

        int partition = store.findByAggregateId("stuck").get(0).getPartition();
        await().atMost(Duration.ofSeconds(10)).until(() -> !processor.isHandling(partition));
        assertThat(store.findByAggregateId("stuck").get(0).getStatus()).isEqualTo(OutboxRecordStatus.NEW);
    }

    @Test
    void theObservationOfAPublishEndsOnceTheFlushOfItsBurstSentIt() {
        List<String> events = new CopyOnWriteArrayList<>();
        broker.onFlush = () -> events.add("flush");
        OutboxObservation observation = new OutboxObservation() {
            @Override
            public PublishEnd observePublish(OutboxRecord record, HandlerCall call) throws Exception {
                call.run();
                events.add("published " + record.getPayload());
                return flushFailure -> events.add("ended " + record.getPayload());
            }
        };
        processor = OutboxProcessor.builder().recordStore(store).routes(handlers(Set.of())).clock(clock)
                .observation(observation).build();
        OutboxRecordRepository outbox = handlers(Set.of()).fanningOut(store);
        save(outbox, "A", 1);
        save(outbox, "B", 1);

        assertThat(processor.processDueRecords()).isEqualTo(2);

        assertThat(events).hasSize(5);
        assertThat(events.subList(0, 2)).containsExactlyInAnyOrder("published A/1", "published B/1");
        assertThat(events.get(2)).as("one flush sends the burst").isEqualTo("flush");
        assertThat(events.subList(3, 5)).containsExactlyInAnyOrder("ended A/1", "ended B/1");
    }

    /** The publisher for event type E, a handler for event type Mail, and a processor to start. */
    private OutboxRecordRepository startInBackground(int concurrency) {
        return startInBackground(concurrency, ProcessingOptions.defaults().batchSize());
    }

    private OutboxRecordRepository startInBackground(int concurrency, int batchSize) {
        OutboxHandlers handlers = OutboxHandlers.builder()
                .publisher(PublisherRegistration.builder(PUBLISHER_ID, broker).eventTypes(Set.of("E")).build())
                .handler(HandlerRegistration.builder("mailer", String.class).eventType("Mail")
                        .handler((mail, metadata) -> mailed.add(mail)).build())
                .deserializer((payload, type) -> payload).build();
        processor = OutboxProcessor.builder().recordStore(store).routes(handlers).clock(clock)
                .options(ProcessingOptions.defaults().withConcurrency(concurrency).withBatchSize(batchSize)
                        .withPollInterval(Duration.ofMillis(100))
                        .withShutdownTimeout(Duration.ofSeconds(1))).build(); // the test's end gives up on stuck/1
        return handlers.fanningOut(store);
    }

    private OutboxRecordRepository start(OutboxRetryPolicy policy, Set<String> eventTypes) {
        processor = processor(policy, eventTypes);
        return handlers(eventTypes).fanningOut(store);
    }

    private OutboxProcessor processor(OutboxRetryPolicy policy, Set<String> eventTypes) {
        OutboxListener listener = new OutboxListener() {
            @Override
            public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
                published.add(record.getPayload());
                if (duplicate) {
                    duplicates.add(record.getPayload());
                }
            }

            @Override
            public void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
                failures.add(((PublishException) failure).reason());
            }
        };
        return OutboxProcessor.builder().recordStore(store).routes(handlers(eventTypes)).clock(clock)
                .retryPolicy(policy).listener(listener)
                .options(ProcessingOptions.defaults().withBatchSize(1000)).build();
    }

    private OutboxHandlers handlers(Set<String> eventTypes) {
        return OutboxHandlers.builder().publisher(PublisherRegistration.builder(PUBLISHER_ID, broker)
                .eventTypes(eventTypes.isEmpty() ? null : eventTypes).build()).build();
    }

    private void save(OutboxRecordRepository outbox, String aggregateId, int sequence) {
        outbox.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("E")
                .payload(aggregateId + "/" + sequence).build(clock));
    }

    private void drain() {
        for (int pass = 0; pass < 100 && processor.processDueRecords() > 0; pass++) {
            // each pass publishes the next record of every aggregate at most
        }
    }

    /**
     * A broker double: publish() queues the record; flush() hands the queue to an acknowledging thread, which accepts
     * or refuses each as scripted. It records what was in flight at once.
     */
    private static final class FakeBroker implements OutboxPublisher {

        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<OutboxRecord> accepted = new CopyOnWriteArrayList<>();
        final Map<String, Integer> inFlightByAggregate = new ConcurrentHashMap<>();
        volatile Function<OutboxRecord, @Nullable Throwable> script = record -> null;
        volatile @Nullable RuntimeException refuseAtOnce;
        volatile Set<String> holdBack = Set.of();
        volatile Set<String> duplicates = Set.of();
        volatile Duration acknowledgementTimeout = Duration.ofSeconds(10);
        volatile Duration ackDelay = Duration.ZERO;
        volatile Runnable onFlush = () -> { };
        volatile int maxInFlight;
        volatile int maxInFlightOfOneAggregate;
        private final List<Pending> queued = new ArrayList<>();
        private final List<Pending> heldBack = new CopyOnWriteArrayList<>();
        private final ExecutorService acknowledger = Executors.newSingleThreadExecutor();
        private int inFlight;

        @Override
        public synchronized CompletionStage<?> publish(OutboxRecord record) {
            RuntimeException refusal = refuseAtOnce;
            if (refusal != null) {
                throw refusal;
            }
            sent.add(record.getPayload());
            int ofAggregate = inFlightByAggregate.merge(record.getAggregateId(), 1, Integer::sum);
            maxInFlightOfOneAggregate = Math.max(maxInFlightOfOneAggregate, ofAggregate);
            maxInFlight = Math.max(maxInFlight, ++inFlight);
            Pending pending = new Pending(record, new CompletableFuture<>());
            queued.add(pending);
            return pending.acknowledgement;
        }

        @Override
        public synchronized void flush() {
            onFlush.run();
            List<Pending> burst = new ArrayList<>(queued);
            queued.clear();
            acknowledger.execute(() -> {
                if (!ackDelay.isZero()) {
                    try {
                        Thread.sleep(ackDelay.toMillis()); // the broker's round trip, not a wait of the test
                    } catch (InterruptedException e) {
                        return;
                    }
                }
                burst.forEach(this::acknowledge);
            });
        }

        @Override
        public Duration acknowledgementTimeout() {
            return acknowledgementTimeout;
        }

        void releaseHeldBack() {
            heldBack.forEach(pending -> pending.acknowledgement.complete(null));
        }

        void awaitSent(int count) {
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(() -> sent.size() >= count);
        }

        Map<String, List<String>> acceptedByAggregate() {
            Map<String, List<String>> byAggregate = new LinkedHashMap<>();
            accepted.forEach(record -> byAggregate.computeIfAbsent(record.getAggregateId(), a -> new ArrayList<>())
                    .add(record.getPayload()));
            return byAggregate;
        }

        void close() {
            acknowledger.shutdownNow();
        }

        private void acknowledge(Pending pending) {
            OutboxRecord record = pending.record;
            synchronized (this) {
                inFlight--;
                inFlightByAggregate.merge(record.getAggregateId(), -1, Integer::sum);
            }
            if (holdBack.contains(record.getPayload())) {
                heldBack.add(pending);
                return;
            }
            Throwable failure = script.apply(record);
            if (failure != null) {
                pending.acknowledgement.completeExceptionally(failure);
            } else {
                accepted.add(record);
                pending.acknowledgement.complete(duplicates.contains(record.getPayload()) ? DUPLICATE : null);
            }
        }

        private record Pending(OutboxRecord record, CompletableFuture<Object> acknowledgement) {
        }
    }
}
