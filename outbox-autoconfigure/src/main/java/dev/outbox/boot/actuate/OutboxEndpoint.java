package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.admin.OutboxAdmin;
import dev.outbox.boot.actuate.OutboxReport.Backlog;
import dev.outbox.boot.actuate.OutboxReport.Deferred;
import dev.outbox.boot.actuate.OutboxReport.FailedRecord;
import dev.outbox.boot.actuate.OutboxReport.FailedRecords;
import dev.outbox.boot.actuate.OutboxReport.Freshness;
import dev.outbox.boot.actuate.OutboxReport.Member;
import dev.outbox.boot.actuate.OutboxReport.ThisInstance;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.PartitionState;
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
     * The answer of {@code GET /actuator/outbox/partitions}.
     *
     * @param takenAt when the cluster figures were read; null before the first read answered
     * @param stale whether they are not current (see {@link OutboxReport.Freshness})
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
}
