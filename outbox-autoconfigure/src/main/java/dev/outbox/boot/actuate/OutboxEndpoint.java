package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.monitoring.DeferredRecords;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.UnreadableRow;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.IntSupplier;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;

/**
 * {@code /actuator/outbox}: this node's health and why, the backlog (from the monitor's cached snapshot), the FAILED
 * records with the oldest of them, the records waiting for an instance that has their handler, how fresh the figures
 * are, this instance and every live one with its heartbeat age and what it can process;
 * {@code /actuator/outbox/partitions} lists the partitions of each owner and this instance's epochs. Write operations
 * retry, skip or delete FAILED records through {@link OutboxAdmin}. The report answers within about {@link #WAIT}
 * twice over whatever the database does: the figures are read on threads of their own, and when they do not come in
 * time the report shows the last ones, marked stale with their age, rather than failing. A write operation likewise
 * answers within {@link #OPERATION_TIMEOUT}: when the outbox tables fail or do not answer in time it is answered 503
 * with the reason, never 500 and never after the connection pool's own timeout.
 */
@Endpoint(id = "outbox")
public class OutboxEndpoint {

    private static final Logger log = LoggerFactory.getLogger(OutboxEndpoint.class);

    /** FAILED records listed by the report. */
    static final int FAILED_RECORDS_SHOWN = 20;
    private static final List<String> RECORD_ACTIONS = List.of("retry", "skip", "delete");
    private static final List<String> ALL_ACTIONS = List.of("retry-all", "skip-all", "delete-all");
    /** The sub-path of the per-partition listings. */
    static final String PARTITIONS = "partitions";
    /** How long the report waits for each of its database reads (the snapshot, the FAILED records). */
    static final Duration WAIT = Duration.ofSeconds(2);
    /** How long a write operation waits for the outbox tables before it answers 503. */
    static final Duration OPERATION_TIMEOUT = Duration.ofSeconds(5);
    /**
     * Write operations that may wait for the outbox tables at once; past that they are answered 503 at once, so that
     * operators retrying during an outage do not pile threads up on the connection pool.
     */
    static final int OPERATIONS_IN_FLIGHT = 2;
    private static final Duration IDLE_OPERATION_THREAD_TIMEOUT = Duration.ofSeconds(30);

    private final OutboxMonitor monitor;
    private final @Nullable ClusterCoordinator coordinator;
    private final String instanceId;
    private final OutboxAdmin admin;
    /** Read anew on every report (reuse: none), but on a thread of its own so that a report never hangs on it. */
    private final LatestReading<List<FailedRecord>> failedRecords;
    private final Duration operationTimeout;
    /** Runs the write operations, so that a caller waits for one at most {@link #operationTimeout}. */
    private final ExecutorService operations;
    /**
     * Admits at most {@link #OPERATIONS_IN_FLIGHT} operations; the permit is given back inside the operation, before
     * its caller is answered, so an operator's next call never finds it still taken by the one answered before.
     */
    private final Semaphore inFlight = new Semaphore(OPERATIONS_IN_FLIGHT);

    public OutboxEndpoint(OutboxMonitor monitor, @Nullable ClusterCoordinator coordinator, String instanceId,
            OutboxAdmin admin, Clock clock) {
        this(monitor, coordinator, instanceId, admin, clock, OPERATION_TIMEOUT);
    }

    OutboxEndpoint(OutboxMonitor monitor, @Nullable ClusterCoordinator coordinator, String instanceId,
            OutboxAdmin admin, Clock clock, Duration operationTimeout) {
        this.monitor = monitor;
        this.coordinator = coordinator;
        this.instanceId = instanceId;
        this.admin = admin;
        this.failedRecords = new LatestReading<>("outbox-endpoint", () -> readFailedRecords(admin),
                Duration.ZERO, clock);
        this.operationTimeout = operationTimeout;
        // the permits bound what waits on the database; the queue only bridges the moment a thread takes to come back
        // for the next operation; idle threads end, so that endpoints of closed applications leave none behind
        ThreadPoolExecutor pool = new ThreadPoolExecutor(OPERATIONS_IN_FLIGHT, OPERATIONS_IN_FLIGHT,
                IDLE_OPERATION_THREAD_TIMEOUT.toSeconds(), TimeUnit.SECONDS, new LinkedBlockingQueue<>(),
                DaemonThreads.numbered("outbox-endpoint-operation"));
        pool.allowCoreThreadTimeOut(true);
        this.operations = pool;
    }

    /**
     * {@code POST /actuator/outbox/{recordId}} with {@code {"action": "retry" | "skip" | "delete"}}: acts on one FAILED
     * record (delete also takes a SKIPPED one). Another action is answered 400 with the allowed ones, and so is a
     * record id that {@link OutboxAdmin} refuses (blank, too long, U+0000, unpaired surrogates). Answered 503 when
     * the outbox tables fail or do not answer within {@link #OPERATION_TIMEOUT}.
     */
    @WriteOperation
    public WebEndpointResponse<Object> act(@Selector String recordId, String action) {
        return switch (action) {
            case "retry" -> operate(action, RECORD_ACTIONS, () -> admin.retry(recordId) ? 1 : 0);
            case "skip" -> operate(action, RECORD_ACTIONS, () -> admin.skip(recordId) ? 1 : 0);
            case "delete" -> operate(action, RECORD_ACTIONS, () -> admin.delete(recordId) ? 1 : 0);
            default -> unknown(action, RECORD_ACTIONS);
        };
    }

    /**
     * {@code POST /actuator/outbox} with {@code {"action": "retry-all" | "skip-all" | "delete-all"}} and optionally
     * {@code eventType}, {@code aggregateId}, {@code handlerId}, {@code errorContains} (text of the last error,
     * without regard to case), {@code lastAttemptDueFrom} and {@code lastAttemptDueBefore} (ISO-8601 instants
     * bounding when the last attempt fell due, about when the record failed:
     * {@link FailedRecordFilter#lastAttemptDueBetween}), {@code createdFrom} and {@code createdBefore} (ISO-8601
     * instants bounding when the record was created, its age: {@link FailedRecordFilter#createdBetween}): makes every
     * matching FAILED record due again, SKIPPED, or deletes it. Another action is answered 400, and so is a filter
     * value that {@link OutboxAdmin} refuses, a bound that is no instant or a range that holds none, naming the
     * parameter; then no record is changed. Answered 503 when the outbox tables fail or do not answer within
     * {@link #OPERATION_TIMEOUT}.
     */
    @WriteOperation
    public WebEndpointResponse<Object> actOnAll(String action, @Nullable String eventType,
            @Nullable String aggregateId, @Nullable String handlerId, @Nullable String errorContains,
            @Nullable String lastAttemptDueFrom, @Nullable String lastAttemptDueBefore, @Nullable String createdFrom,
            @Nullable String createdBefore) {
        if (!ALL_ACTIONS.contains(action)) {
            return unknown(action, ALL_ACTIONS);
        }
        FailedRecordFilter filter;
        try {
            Instant from = TimeBound.parse("lastAttemptDueFrom", lastAttemptDueFrom);
            Instant before = TimeBound.parse("lastAttemptDueBefore", lastAttemptDueBefore);
            TimeBound.checkRange(from, "lastAttemptDueFrom", before, "lastAttemptDueBefore");
            Instant createdAtOrAfter = TimeBound.parse("createdFrom", createdFrom);
            Instant createdEarlier = TimeBound.parse("createdBefore", createdBefore);
            TimeBound.checkRange(createdAtOrAfter, "createdFrom", createdEarlier, "createdBefore");
            filter = FailedRecordFilter.any().withEventType(eventType).withAggregateId(aggregateId)
                    .withHandlerId(handlerId).withErrorContaining(errorContains).lastAttemptDueBetween(from, before)
                    .createdBetween(createdAtOrAfter, createdEarlier);
        } catch (IllegalArgumentException refused) {
            return badRequest(refused, ALL_ACTIONS);
        }
        return switch (action) {
            case "retry-all" -> operate(action, ALL_ACTIONS, () -> admin.retryAll(filter));
            case "skip-all" -> operate(action, ALL_ACTIONS, () -> admin.skipAll(filter));
            default -> operate(action, ALL_ACTIONS, () -> admin.deleteAll(filter));
        };
    }

    /**
     * Runs {@code operation} on a thread of its own and waits for it at most {@link #operationTimeout}: a connection
     * pool waits far longer for a connection to a database that is gone, and what the database throws would be
     * answered 500.
     */
    private WebEndpointResponse<Object> operate(String action, List<String> allowed, IntSupplier operation) {
        if (!inFlight.tryAcquire()) {
            return unavailable(action, OPERATIONS_IN_FLIGHT + " earlier operations are still waiting for the outbox "
                    + "tables; nothing was done");
        }
        Future<Integer> result = operations.submit(() -> {
            try {
                return operation.getAsInt();
            } finally {
                inFlight.release();
            }
        });
        try {
            return done(action, result.get(operationTimeout.toNanos(), TimeUnit.NANOSECONDS));
        } catch (TimeoutException unanswered) {
            return unavailable(action, "the outbox tables did not answer within " + seconds(operationTimeout)
                    + "s; the " + action + " takes effect if they answer later, and its outcome is logged then");
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof IllegalArgumentException refused) {
                return badRequest(refused, allowed);
            }
            log.warn("Outbox endpoint: {} failed: the outbox tables are unavailable", action, cause);
            return unavailable(action, "the outbox tables are unavailable: " + cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return unavailable(action, "interrupted while waiting for the outbox tables; the " + action
                    + " takes effect if they answer later");
        }
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    private static WebEndpointResponse<Object> done(String action, int records) {
        return new WebEndpointResponse<>(new AdminResult(action, records));
    }

    private static WebEndpointResponse<Object> unavailable(String action, String reason) {
        return new WebEndpointResponse<>(new AdminUnavailable(action, reason),
                WebEndpointResponse.STATUS_SERVICE_UNAVAILABLE);
    }

    private static WebEndpointResponse<Object> unknown(String action, List<String> allowed) {
        return new WebEndpointResponse<>(new AdminError("unknown action " + EchoedInput.quoted(action) + "; allowed: "
                + String.join(", ", allowed), allowed), WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /** The admin's refusal names the parameter and the limit and does not repeat the value. */
    private static WebEndpointResponse<Object> badRequest(IllegalArgumentException refused, List<String> allowed) {
        return new WebEndpointResponse<>(new AdminError(String.valueOf(refused.getMessage()), allowed),
                WebEndpointResponse.STATUS_BAD_REQUEST);
    }

    /** Why an operation was refused, and what it accepts. */
    public record AdminError(String error, List<String> allowedActions) {
    }

    /** Why an operation could not be carried out now: what did not answer, and whether it may still take effect. */
    public record AdminUnavailable(String action, String error) {
    }

    /** What an operation did: how many records it changed. */
    public record AdminResult(String action, int records) {
    }

    /** The oldest FAILED rows, records and rows that cannot be read as records alike, in sequence order. */
    private static List<FailedRecord> readFailedRecords(OutboxAdmin admin) {
        FetchedRows failedRows = admin.failedRows(FailedRecordFilter.any(), FAILED_RECORDS_SHOWN);
        return Stream.concat(
                        failedRows.records().stream().map(FailedRecord::of),
                        failedRows.unreadable().stream().map(FailedRecord::of))
                .sorted(Comparator.comparing(FailedRecord::sequence, Comparator.nullsLast(Comparator.naturalOrder())))
                .toList();
    }

    /**
     * {@code GET /actuator/outbox}: what an operator looks for first, in this order: this node's health in a word and
     * why (the judgement of {@code outbox} health), the backlog, the FAILED records (count and the oldest), the
     * deferred records, how fresh the figures are; then this instance and the live ones. The per-partition listings
     * are under {@link #partitions(String) /actuator/outbox/partitions}.
     */
    @ReadOperation
    public OutboxReport outbox() {
        LatestReading.Reading<OutboxSnapshot> reading = monitor.latest(WAIT);
        LatestReading.Reading<List<FailedRecord>> failed = failedRecords.get(WAIT);
        OutboxSnapshot snapshot = reading.value();
        NodeHealth health = NodeHealth.of(reading, coordinator, monitor.staleTimeout());
        Freshness freshness = Freshness.of(reading, failed);
        List<FailedRecord> oldestFailed = failed.answer().orElse(List.of());
        ThisInstance self = new ThisInstance(instanceId, coordinator != null,
                coordinator != null && coordinator.isInContact(), coordinator != null && coordinator.isShuttingDown(),
                ownedPartitions(snapshot).size());
        if (snapshot == null) {
            return new OutboxReport(health.status(), health.reason(), new Backlog(0, null, 0, 0, Map.of(), Map.of()),
                    new FailedRecords(oldestFailed.size(), oldestFailed), new Deferred(0, 0, List.of()), freshness,
                    self, List.of(), 0);
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        snapshot.recordCounts().forEach((status, count) -> counts.put(status.name().toLowerCase(Locale.ROOT), count));
        Backlog backlog = new Backlog(snapshot.recordCount(OutboxRecordStatus.NEW),
                snapshot.oldestPending().orElse(null), snapshot.oldestPendingAge().toMillis() / 1000.0,
                snapshot.pendingInOwnedPartitions(), counts, snapshot.unknownStatusCounts());
        Deferred deferred = new Deferred(snapshot.deferredRecordCount(), snapshot.unhandledRecordCount(),
                snapshot.deferredRecords());
        Map<String, Set<Integer>> byOwner = snapshot.partitionsByOwner();
        List<Member> members = snapshot.liveInstances().stream()
                .map(state -> Member.of(state, byOwner.getOrDefault(state.instanceId(), Set.of()).size()))
                .toList();
        return new OutboxReport(health.status(), health.reason(), backlog,
                new FailedRecords(snapshot.recordCount(OutboxRecordStatus.FAILED), oldestFailed), deferred,
                freshness, self, members, snapshot.unassignedPartitionCount());
    }

    /**
     * {@code GET /actuator/outbox/partitions}: the per-partition listings the report leaves out, 256 entries each:
     * this instance's partitions with their epochs, the partitions of each owner, those without a live owner, and the
     * NEW records of each partition that has any. Another sub-path is answered 404 naming this one.
     */
    @ReadOperation
    public WebEndpointResponse<Object> partitions(@Selector String listing) {
        if (!PARTITIONS.equals(listing)) {
            return new WebEndpointResponse<>(new UnknownListing("no listing is named " + EchoedInput.quoted(listing)
                    + "; there is: " + PARTITIONS, List.of(PARTITIONS)), WebEndpointResponse.STATUS_NOT_FOUND);
        }
        return new WebEndpointResponse<>(partitionsReport());
    }

    /** What {@code GET /actuator/outbox/partitions} answers. */
    public PartitionsReport partitionsReport() {
        LatestReading.Reading<OutboxSnapshot> reading = monitor.latest(WAIT);
        OutboxSnapshot snapshot = reading.value();
        OwnedPartitions owned = ownedPartitions(snapshot);
        Map<Integer, Long> epochs = new LinkedHashMap<>();
        owned.stream().forEach(partition -> epochs.put(partition, owned.epochOf(partition)));
        if (snapshot == null) {
            return new PartitionsReport(null, reading.stale(), instanceId, epochs, Map.of(), List.of(), Map.of());
        }
        Set<String> live = new HashSet<>();
        snapshot.liveInstances().forEach(state -> live.add(state.instanceId()));
        List<Integer> unassigned = snapshot.partitions().stream()
                .filter(partition -> partition.owner() == null || !live.contains(partition.owner()))
                .map(PartitionState::partition).sorted().toList();
        Map<Integer, Long> pending = new LinkedHashMap<>();
        for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
            long records = snapshot.pendingIn(partition);
            if (records > 0) {
                pending.put(partition, records);
            }
        }
        return new PartitionsReport(snapshot.takenAt(), reading.stale(), instanceId, epochs,
                snapshot.partitionsByOwner(), unassigned, pending);
    }

    /** This instance's partitions: the coordinator's own state when clustered, else the snapshot's. */
    private OwnedPartitions ownedPartitions(@Nullable OutboxSnapshot snapshot) {
        return coordinator != null ? coordinator.ownedPartitions()
                : snapshot != null ? snapshot.ownedPartitions() : OwnedPartitions.none();
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
    }

    /**
     * @param count FAILED records in the outbox tables, from the cached figures (before the first snapshot: how
     *     many are listed)
     * @param oldest the oldest of them, at most 20, in sequence order
     */
    public record FailedRecords(long count, List<FailedRecord> oldest) {
    }

    /**
     * The answer of {@code GET /actuator/outbox/partitions}.
     *
     * @param takenAt when the cluster figures were read; null before the first read answered
     * @param stale whether they are not current (see {@link Freshness})
     * @param instance this instance's id
     * @param epochs epoch of each partition this instance owns, from its own state; status writes are fenced on it
     * @param byOwner owned partitions by instance id
     * @param unassigned partitions without a live owner
     * @param pending NEW records by partition, for the partitions that have any
     */
    public record PartitionsReport(@Nullable Instant takenAt, boolean stale, String instance,
            Map<Integer, Long> epochs, Map<String, Set<Integer>> byOwner, List<Integer> unassigned,
            Map<Integer, Long> pending) {
    }

    /** The answer to a listing that does not exist, with those that do. */
    public record UnknownListing(String error, List<String> listings) {
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
}
