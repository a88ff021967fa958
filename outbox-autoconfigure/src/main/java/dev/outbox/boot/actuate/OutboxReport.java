package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecord;
import dev.outbox.monitoring.DeferredRecords;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.UnreadableRow;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The report of {@code GET /actuator/outbox}, its fields in the order an operator looks for them; the JSON keeps
 * this order.
 *
 * @param health this node's health in a word: {@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE} or
 *     {@code UNKNOWN}, as {@code /actuator/health/outbox} judges it
 * @param reason why it is not UP; null when UP
 * @param backlog the NEW records and the age of the oldest, and the records by status
 * @param failedRecords how many records are FAILED, and the oldest of them (read now, not cached, unless
 *     {@code freshness} says so)
 * @param deferred records waiting for an instance that has their handler
 * @param freshness whether the figures are current, and how old they are when not
 * @param instance this instance, from its own state
 * @param instances the live instances of the cluster
 * @param unassignedPartitions partitions without a live owner; which ones is under
 *     {@code /actuator/outbox/partitions}
 */
public record OutboxReport(String health, @Nullable String reason, Backlog backlog, FailedRecords failedRecords,
        Deferred deferred, Freshness freshness, ThisInstance instance, List<Member> instances,
        int unassignedPartitions) {

    /**
     * @param pending NEW records
     * @param oldestPending creation time of the oldest NEW record, if any
     * @param oldestPendingAgeSeconds its age when read
     * @param pendingInOwnedPartitions NEW records in this instance's partitions
     * @param records records per status; COMPLETED only with {@code outbox.metrics.count-completed-records=true}
     * @param unknownStatuses rows whose status is none of the library's (written by SQL), by the status as stored;
     *     no fetch reads them as due, and the processor marks them FAILED as unreadable rows within a minute
     */
    public record Backlog(long pending, @Nullable Instant oldestPending, double oldestPendingAgeSeconds,
            long pendingInOwnedPartitions, Map<String, Long> records, Map<String, Long> unknownStatuses) {
    }

    /**
     * @param count FAILED records in the outbox tables, from the cached figures (before the first snapshot: how
     *     many are listed)
     * @param oldest the oldest of them, at most 20, in sequence order
     */
    public record FailedRecords(long count, List<FailedRecord> oldest) {
    }

    /**
     * A FAILED record as an operator needs to see it. A row that cannot be read as a record (written by SQL, a
     * migration or an older version; see {@link UnreadableRow}) shows what could be read, null for the rest, and
     * its {@code problem}; its {@code lastError} says what is wrong.
     *
     * @param sequence the order of the listing
     * @param problem null for a record; for an unreadable row, its kind ({@code MISPLACED}, {@code UNKNOWN_STATUS},
     *     {@code MISSING_VALUE}, {@code UNREADABLE_VALUE})
     */
    public record FailedRecord(@Nullable String id, @Nullable Long sequence, @Nullable String aggregateId,
            @Nullable String eventType, @Nullable String handlerId, @Nullable Instant createdAt,
            @Nullable Integer retryCount, @Nullable String lastError, @Nullable String problem) {
        public static FailedRecord of(OutboxRecord record) {
            return new FailedRecord(record.getId(), record.getSequence(), record.getAggregateId(),
                    record.getEventType(), record.getHandlerId(), record.getCreatedAt(), record.getRetryCount(),
                    record.getLastError(), null);
        }

        public static FailedRecord of(UnreadableRow row) {
            String handlerId = row.handlerId();
            return new FailedRecord(row.id(), row.sequence(), row.aggregateId(), row.eventType(),
                    handlerId == null || handlerId.isEmpty() ? null : handlerId, row.createdAt(), null,
                    row.lastError(), row.problem().name());
        }
    }

    /**
     * NEW records whose partition's owner lacks their handler: during a rolling deploy, records of a newer version in
     * the partitions of an older one. They fail once {@code outbox.processing.max-deferral} has passed since their
     * first deferral.
     *
     * @param records how many
     * @param unhandled how many of them no live instance has the handler for: a stuck deploy or a removed handler
     * @param byHandler by handler id, with the live instances that have it
     */
    public record Deferred(long records, long unhandled, List<DeferredRecords> byHandler) {
    }

    /**
     * Whether the report's figures are current. When the database did not answer in time they are the last ones
     * read, and say how old they are.
     *
     * @param takenAt when the backlog and cluster figures were read (they are reused for
     *     {@code outbox.metrics.refresh-interval}); null before the first read answered
     * @param stale whether any figure is not current: not read yet, the last read failed or is still unanswered
     * @param snapshotAgeSeconds age of the backlog and cluster figures; null before the first snapshot
     * @param unansweredSeconds how long the outbox tables have not answered; 0 when they did
     * @param failedRecordsStale whether the FAILED records shown are not current
     * @param error why the last read failed, if it did
     */
    public record Freshness(@Nullable Instant takenAt, boolean stale, @Nullable Double snapshotAgeSeconds,
            double unansweredSeconds, boolean failedRecordsStale, @Nullable String error) {
        static Freshness of(LatestReading.Reading<OutboxSnapshot> snapshot, LatestReading.Reading<?> failedRecords) {
            Duration age = snapshot.age();
            RuntimeException failure = snapshot.failure() != null ? snapshot.failure() : failedRecords.failure();
            Duration unanswered = snapshot.unansweredFor().compareTo(failedRecords.unansweredFor()) >= 0
                    ? snapshot.unansweredFor() : failedRecords.unansweredFor();
            OutboxSnapshot read = snapshot.value();
            return new Freshness(read == null ? null : read.takenAt(), snapshot.stale() || failedRecords.stale(),
                    age == null ? null : age.toMillis() / 1000.0, unanswered.toMillis() / 1000.0,
                    failedRecords.stale(), failure == null ? null : failure.toString());
        }
    }

    /**
     * @param clustered whether it takes part in partition assignment (processing in the background)
     * @param inContact whether its heartbeat lease is valid
     * @param ownedPartitions how many partitions it owns; which ones, with their epochs, is under
     *     {@code /actuator/outbox/partitions}
     */
    public record ThisInstance(String id, boolean clustered, boolean inContact, boolean shuttingDown,
            int ownedPartitions) {
    }

    /**
     * A live instance as the instance table has it, with its heartbeat age by the database's clock and what it can
     * process; the version and handler fields are null for an instance that did not say.
     *
     * @param ownedPartitions how many partitions the partition table gives it
     */
    public record Member(String id, String hostname, int port, String status, Instant startedAt,
            double heartbeatAgeSeconds, int ownedPartitions, @Nullable String version, @Nullable Set<String> handlerIds,
            @Nullable Set<String> eventTypes, @Nullable Boolean recordProcessor) {
        public static Member of(InstanceState state, int ownedPartitions) {
            InstanceCapabilities capabilities = state.capabilities();
            return new Member(state.instanceId(), state.hostname(), state.port(), state.status().name(),
                    state.startedAt(), state.heartbeatAge().toMillis() / 1000.0, ownedPartitions,
                    capabilities == null ? null : capabilities.version(),
                    capabilities == null ? null : capabilities.handlerIds(),
                    capabilities == null ? null : capabilities.eventTypes(),
                    capabilities == null ? null : capabilities.recordProcessor());
        }
    }
}
