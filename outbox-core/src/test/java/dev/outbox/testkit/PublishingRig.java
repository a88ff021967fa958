package dev.outbox.testkit;

import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublishException;
import dev.outbox.publish.PublisherRegistration;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.testing.InMemoryRecordStore;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A publisher at work in the real engine, for tests against real brokers: an {@link OutboxProcessor} running in the
 * background on an {@link InMemoryRecordStore}, the publisher registered as a handler, and what the engine reported
 * (published, duplicates, redeliveries, failures by reason).
 *
 * <pre>{@code
 * try (PublishingRig rig = PublishingRig.start("nats", publisher, OutboxRetryPolicy.fixed(...))) {
 *     List<OutboxRecord> written = rig.write(1000, 10, "OrderPlaced");
 *     rig.awaitAllCompleted(Duration.ofSeconds(120));
 * }
 * }</pre>
 *
 * <p>Its waits ignore exceptions thrown on other threads (Awaitility would fail on them by default): a broker client's
 * own threads may throw while a connection goes down (Spring AMQP's channel cache, waiting for the confirms of a
 * channel the broker closed, throws on its pool thread). What the engine saw is what these tests judge.
 */
public final class PublishingRig implements AutoCloseable {

    private final InMemoryRecordStore store = new InMemoryRecordStore();
    private final OutboxRecordRepository outbox;
    private final OutboxProcessor processor;
    private final AtomicLong published = new AtomicLong();
    private final AtomicLong duplicates = new AtomicLong();
    private final Map<PublishException.Reason, AtomicLong> failures = new EnumMap<>(PublishException.Reason.class);
    private final List<Throwable> otherFailures = new ArrayList<>();

    private PublishingRig(String publisherId, OutboxPublisher publisher, OutboxRetryPolicy retryPolicy) {
        for (PublishException.Reason reason : PublishException.Reason.values()) {
            failures.put(reason, new AtomicLong());
        }
        OutboxHandlers handlers = OutboxHandlers.builder()
                .publisher(PublisherRegistration.builder(publisherId, publisher).build()).build();
        this.outbox = handlers.fanningOut(store);
        this.processor = OutboxProcessor.builder().recordStore(store).routes(handlers).clock(Clock.systemUTC())
                .retryPolicy(retryPolicy).listener(new Counting())
                .options(ProcessingOptions.defaults().withPollInterval(Duration.ofMillis(50))).build();
    }

    /** A rig already processing. */
    public static PublishingRig start(String publisherId, OutboxPublisher publisher, OutboxRetryPolicy retryPolicy) {
        PublishingRig rig = create(publisherId, publisher, retryPolicy);
        rig.startProcessing();
        return rig;
    }

    /** A rig that processes nothing until {@link #startProcessing()}: for a backlog written first. */
    public static PublishingRig create(String publisherId, OutboxPublisher publisher, OutboxRetryPolicy retryPolicy) {
        return new PublishingRig(publisherId, publisher, retryPolicy);
    }

    public void startProcessing() {
        processor.start();
    }

    /**
     * Writes {@code recordsPerAggregate} rounds of one record for each of {@code aggregates} aggregates
     * ({@code aggregate-0} …), payload {@code {"aggregate":"…","n":round}}, in round order.
     *
     * @return the records as stored, with their sequence numbers
     */
    public List<OutboxRecord> write(int aggregates, int recordsPerAggregate, String eventType) {
        List<OutboxRecord> written = new ArrayList<>(aggregates * recordsPerAggregate);
        for (int round = 0; round < recordsPerAggregate; round++) {
            for (int aggregate = 0; aggregate < aggregates; aggregate++) {
                String aggregateId = "aggregate-" + aggregate;
                written.add(write(aggregateId, eventType,
                        "{\"aggregate\":\"" + aggregateId + "\",\"n\":" + round + "}"));
            }
        }
        return written;
    }

    /** Writes one record, with the header {@value #TENANT_HEADER} = {@code tenantOf(aggregateId)}. */
    public OutboxRecord write(String aggregateId, String eventType, String payload) {
        return outbox.save(OutboxRecord.builder().aggregateId(aggregateId).eventType(eventType).payload(payload)
                .header(TENANT_HEADER, tenantOf(aggregateId)).build(Clock.systemUTC()));
    }

    /** The header of the writer's that every record of the rig has, for the publishers to forward. */
    public static final String TENANT_HEADER = "tenant";

    public static String tenantOf(String aggregateId) {
        return "tenant-of-" + aggregateId;
    }

    /** Waits until every record is COMPLETED; fails at once when one is FAILED. */
    public void awaitAllCompleted(Duration deadline) {
        await().dontCatchUncaughtExceptions().atMost(deadline).pollInterval(Duration.ofMillis(200)).until(() -> {
            List<OutboxRecord> failed = store.findByStatus(OutboxRecordStatus.FAILED, 5);
            if (!failed.isEmpty()) {
                throw new AssertionError("records FAILED: " + failed.stream()
                        .map(record -> record.getId() + ": " + record.getLastError()).toList());
            }
            return store.countByStatus(OutboxRecordStatus.NEW) == 0;
        });
    }

    /** Waits until the record has left NEW, and returns it as stored. */
    public OutboxRecord awaitSettled(OutboxRecord record, Duration deadline) {
        await().dontCatchUncaughtExceptions().atMost(deadline).pollInterval(Duration.ofMillis(100))
                .until(() -> stored(record).getStatus() != OutboxRecordStatus.NEW);
        return stored(record);
    }

    public OutboxRecord stored(OutboxRecord record) {
        return store.findById(record.getId()).orElseThrow();
    }

    public long count(OutboxRecordStatus status) {
        return store.countByStatus(status);
    }

    /** Records the publisher had acknowledged, duplicates included. */
    public long published() {
        return published.get();
    }

    /** Acknowledged records the broker said it held already ({@link OutboxPublisher#DUPLICATE}). */
    public long duplicatesReported() {
        return duplicates.get();
    }

    public long failures(PublishException.Reason reason) {
        return failures.get(reason).get();
    }

    /** Failed attempts by reason, the reasons that occurred only. */
    public Map<PublishException.Reason, Long> failuresByReason() {
        Map<PublishException.Reason, Long> byReason = new EnumMap<>(PublishException.Reason.class);
        failures.forEach((reason, count) -> {
            if (count.get() > 0) {
                byReason.put(reason, count.get());
            }
        });
        return byReason;
    }

    /** Failed attempts whose exception was not a {@link PublishException}: a publisher should never cause one. */
    public synchronized List<Throwable> otherFailures() {
        return List.copyOf(otherFailures);
    }

    @Override
    public void close() {
        processor.close();
    }

    private final class Counting implements OutboxListener {

        @Override
        public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
            published.incrementAndGet();
            if (duplicate) {
                duplicates.incrementAndGet();
            }
        }

        @Override
        public void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
            if (failure instanceof PublishException publishFailure) {
                failures.get(publishFailure.reason()).incrementAndGet();
            } else {
                synchronized (PublishingRig.this) {
                    otherFailures.add(failure);
                }
            }
        }
    }
}
