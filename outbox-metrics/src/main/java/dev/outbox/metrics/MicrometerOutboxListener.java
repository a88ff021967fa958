package dev.outbox.metrics;

import dev.outbox.OutboxRecord;
import dev.outbox.publish.PublishException;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.UnreadableRow;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Counts processing outcomes and times handlers in Micrometer. Observes only: it never changes what the processor does.
 *
 * <ul>
 *   <li>{@code outbox.records.processed}, {@code outbox.records.retried}, {@code outbox.records.failed}: records
 *       completed, failures that scheduled a retry, records that became FAILED; tagged {@code event_type} and
 *       {@code handler} (the typed handler's id, {@code none} for the record processor)</li>
 *   <li>{@code outbox.records.rejected}: outcomes the partition fence (or a concurrent change) refused</li>
 *   <li>{@code outbox.records.poison}: rows that cannot be read as records (written by SQL, a migration or an older
 *       version), tagged {@code problem} ({@code misplaced}, {@code unknown_status}, {@code missing_value},
 *       {@code unreadable_value}) and {@code outcome} ({@code failed}: marked FAILED; {@code skipped}: left as they
 *       are, since no write can reach them); counted once per row, apart from {@code outbox.records.failed}, whose
 *       event type they may not have</li>
 *   <li>{@code outbox.processing.time}: handler time, tagged {@code outcome=success|failure}, with a percentile
 *       histogram</li>
 *   <li>{@code outbox.records.lag}: from a record's creation to the storing of its completion</li>
 * </ul>
 *
 * Per publisher, tagged {@code publisher} (its handler id):
 *
 * <ul>
 *   <li>{@code outbox.publisher.published}: records the broker acknowledged;</li>
 *   <li>{@code outbox.publisher.latency}: from the send to the acknowledgement, with a percentile histogram;</li>
 *   <li>{@code outbox.publisher.failed}: failed attempts, tagged {@code cause} (the {@link PublishException.Reason},
 *       lower case, or {@code other});</li>
 *   <li>{@code outbox.publisher.redeliveries}: records acknowledged that had been attempted before; each may be a
 *       duplicate on the broker, when an earlier attempt reached it without its acknowledgement reaching us;</li>
 *   <li>{@code outbox.publisher.duplicates}: records the broker recognised as already held and dropped (NATS
 *       JetStream within its duplicate window).</li>
 * </ul>
 *
 * <p>Event types are tag values, so their number is capped: past {@code maxEventTypes} distinct event type and handler
 * pairs, further ones are counted under {@code event_type=other, handler=other}.
 */
public final class MicrometerOutboxListener implements OutboxListener {

    /** Default cap of distinct {@code event_type} tag values. */
    public static final int DEFAULT_MAX_EVENT_TYPES = 50;
    static final String OTHER_EVENT_TYPES = "other";
    static final String NO_HANDLER = "none";

    private final MeterRegistry registry;
    private final Tags tags;
    private final Clock clock;
    private final int maxEventTypes;
    private final Map<TagValues, Outcomes> byEventType = new ConcurrentHashMap<>();
    private final Map<String, PublisherMeters> byPublisher = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> publishFailures = new ConcurrentHashMap<>();
    private final Map<List<String>, Counter> poison = new ConcurrentHashMap<>();
    private final Counter rejected;
    private final Timer successTime;
    private final Timer failureTime;
    private final Timer lag;

    public MicrometerOutboxListener(MeterRegistry registry) {
        this(registry, Clock.systemUTC(), DEFAULT_MAX_EVENT_TYPES);
    }

    /**
     * @param clock the clock records are created with, for the lag
     * @param maxEventTypes distinct {@code event_type} tag values before {@code other}; at least 1
     */
    public MicrometerOutboxListener(MeterRegistry registry, Clock clock, int maxEventTypes) {
        this(registry, clock, maxEventTypes, Tags.empty());
    }

    /**
     * @param clock the clock records are created with, for the lag
     * @param maxEventTypes distinct {@code event_type} tag values before {@code other}; at least 1
     * @param tags put on every meter, such as the outbox's name when an application has several
     */
    public MicrometerOutboxListener(MeterRegistry registry, Clock clock, int maxEventTypes, Iterable<Tag> tags) {
        this.registry = Objects.requireNonNull(registry, "registry");
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
        this.clock = Objects.requireNonNull(clock, "clock");
        if (maxEventTypes < 1) {
            throw new IllegalArgumentException("maxEventTypes must be at least 1 but was " + maxEventTypes);
        }
        this.maxEventTypes = maxEventTypes;
        this.rejected = Counter.builder("outbox.records.rejected")
                .description("Outcomes not stored because the partition changed owner or the record changed")
                .tags(tags).register(registry);
        this.successTime = handlerTimer("success");
        this.failureTime = handlerTimer("failure");
        this.lag = Timer.builder("outbox.records.lag").description("From record creation to stored completion")
                .publishPercentileHistogram().tags(tags).register(registry);
    }

    private Timer handlerTimer(String outcome) {
        return Timer.builder("outbox.processing.time").tag("outcome", outcome)
                .description("Time spent in record handlers").publishPercentileHistogram().tags(tags)
                .register(registry);
    }

    @Override
    public void onCompleted(OutboxRecord record, Duration handlerTime) {
        outcomes(record).processed.increment();
        successTime.record(handlerTime);
        Duration sinceCreation = Duration.between(record.getCreatedAt(), clock.instant());
        if (!sinceCreation.isNegative()) {
            lag.record(sinceCreation);
        }
    }

    @Override
    public void onRetryScheduled(OutboxRecord record, Throwable error, int retryCount, Duration handlerTime) {
        outcomes(record).retried.increment();
        failureTime.record(handlerTime);
    }

    @Override
    public void onFailed(OutboxRecord record, Throwable error, Duration handlerTime) {
        outcomes(record).failed.increment();
        failureTime.record(handlerTime);
    }

    @Override
    public void onStatusWriteRejected(OutboxRecord record) {
        rejected.increment();
    }

    @Override
    public void onUnreadableRow(UnreadableRow row, boolean failed) {
        String problem = row.problem().name().toLowerCase(Locale.ROOT);
        String outcome = failed ? "failed" : "skipped";
        poison.computeIfAbsent(List.of(problem, outcome), key -> Counter.builder("outbox.records.poison")
                .description("Rows that cannot be read as records: marked FAILED, or skipped").tag("problem", problem)
                .tag("outcome", outcome).tags(tags).register(registry)).increment();
    }

    @Override
    public void onPublished(OutboxRecord record, Duration acknowledgementTime, boolean duplicate) {
        PublisherMeters meters = publisher(record);
        meters.published.increment();
        meters.latency.record(acknowledgementTime);
        if (record.getRetryCount() > 0 || record.getLastError() != null) {
            meters.redeliveries.increment();
        }
        if (duplicate) {
            meters.duplicates.increment();
        }
    }

    @Override
    public void onPublishFailed(OutboxRecord record, Throwable failure, Duration time) {
        String cause = failure instanceof PublishException refused ? refused.reason().tag() : "other";
        String publisher = publisherId(record);
        publishFailures.computeIfAbsent(List.of(publisher, cause), key -> Counter.builder("outbox.publisher.failed")
                .description("Failed attempts to publish, by cause").tag("publisher", publisher).tag("cause", cause)
                .tags(tags).register(registry)).increment();
    }

    private PublisherMeters publisher(OutboxRecord record) {
        return byPublisher.computeIfAbsent(publisherId(record), publisher -> new PublisherMeters(
                publisherCounter("outbox.publisher.published", "Records the broker acknowledged", publisher),
                Timer.builder("outbox.publisher.latency").tag("publisher", publisher)
                        .description("From the send to the broker's acknowledgement").publishPercentileHistogram()
                        .tags(tags).register(registry),
                publisherCounter("outbox.publisher.redeliveries", "Records acknowledged after an earlier attempt",
                        publisher),
                publisherCounter("outbox.publisher.duplicates", "Records the broker dropped as duplicates",
                        publisher)));
    }

    private Counter publisherCounter(String name, String description, String publisher) {
        return Counter.builder(name).description(description).tag("publisher", publisher).tags(tags).register(registry);
    }

    private static String publisherId(OutboxRecord record) {
        String handler = record.getHandlerId();
        return handler == null ? NO_HANDLER : handler;
    }

    private Outcomes outcomes(OutboxRecord record) {
        String handler = record.getHandlerId();
        TagValues tags = new TagValues(record.getEventType(), handler == null ? NO_HANDLER : handler);
        Outcomes known = byEventType.get(tags);
        if (known != null) {
            return known;
        }
        // Racing threads may each pass the size check: the cap can be passed by the number of workers, not more.
        if (byEventType.size() >= maxEventTypes) {
            tags = new TagValues(OTHER_EVENT_TYPES, OTHER_EVENT_TYPES);
        }
        return byEventType.computeIfAbsent(tags, this::register);
    }

    private Outcomes register(TagValues tags) {
        return new Outcomes(
                counter("outbox.records.processed", "Outbox records completed", tags),
                counter("outbox.records.retried", "Handler failures that scheduled a retry", tags),
                counter("outbox.records.failed", "Outbox records that became FAILED", tags));
    }

    private Counter counter(String name, String description, TagValues values) {
        return Counter.builder(name).description(description).tag("event_type", values.eventType())
                .tag("handler", values.handler()).tags(tags).register(registry);
    }

    private record TagValues(String eventType, String handler) {
    }

    private record Outcomes(Counter processed, Counter retried, Counter failed) {
    }

    private record PublisherMeters(Counter published, Timer latency, Counter redeliveries, Counter duplicates) {
    }
}
