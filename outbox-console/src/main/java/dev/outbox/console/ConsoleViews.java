package dev.outbox.console;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.boot.actuate.OutboxReport.FailedRecord;
import dev.outbox.boot.actuate.OutboxReport.Member;
import dev.outbox.console.ConsoleHistory.SeenInstance;
import dev.outbox.monitoring.DeferredRecords;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.PartitionRecords;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.UnreadableRow;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.IntToLongFunction;
import org.jspecify.annotations.Nullable;

/**
 * What the page shows, built from the monitor's cached snapshot (no query of its own), the actuator endpoint's views
 * of instances and FAILED records, and a partition's records as OutboxAdmin counted them.
 */
final class ConsoleViews {

    private ConsoleViews() {
    }

    /**
     * @param seen the instances the history saw live within the hour: those not live now are departed
     */
    static Overview overview(@Nullable String outbox, List<String> outboxes,
            LatestReading.Reading<OutboxSnapshot> reading, Duration staleTimeout, OperationsState operations,
            Map<String, SeenInstance> seen) {
        OutboxSnapshot snapshot = reading.value();
        Duration age = reading.age();
        Double ageSeconds = age == null ? null : seconds(age);
        if (snapshot == null) {
            return new Overview(outbox, outboxes, null, true, ageSeconds, seconds(staleTimeout), Map.of(), List.of(),
                    List.of(), partitions(Map.of(), Set.of(), partition -> 0L), List.of(), operations);
        }
        Map<String, Long> counts = new LinkedHashMap<>();
        snapshot.recordCounts().forEach((status, count) -> counts.put(status.name().toLowerCase(Locale.ROOT), count));
        Map<String, Set<Integer>> byOwner = snapshot.partitionsByOwner();
        List<InstanceView> instances = new ArrayList<>();
        Set<String> live = new HashSet<>();
        for (InstanceState state : snapshot.liveInstances()) {
            live.add(state.instanceId());
            Member member = Member.of(state, byOwner.getOrDefault(state.instanceId(), Set.of()).size());
            // live by the snapshot, but more than half the stale timeout without a heartbeat: about to lose its lease
            boolean late = state.heartbeatAge().compareTo(staleTimeout.dividedBy(2)) > 0;
            instances.add(new InstanceView(member, late));
        }
        List<DepartedInstance> departed = departed(seen, live, byOwner);
        Map<Integer, PartitionState> states = new HashMap<>();
        snapshot.partitions().forEach(state -> states.put(state.partition(), state));
        return new Overview(outbox, outboxes, snapshot.takenAt(), reading.stale(), ageSeconds, seconds(staleTimeout),
                counts, instances, departed, partitions(states, live, snapshot::pendingIn), snapshot.deferredRecords(),
                operations);
    }

    /**
     * Instances seen live within the hour that are not live now, as last seen, and owners in the partition table that
     * are not live (the history may never have seen them: it started after they went), one row per id, by id.
     */
    private static List<DepartedInstance> departed(Map<String, SeenInstance> seen, Set<String> live,
            Map<String, Set<Integer>> byOwner) {
        Map<String, DepartedInstance> departed = new TreeMap<>();
        seen.forEach((id, instance) -> {
            if (!live.contains(id)) {
                departed.put(id, DepartedInstance.of(instance, byOwner.getOrDefault(id, Set.of()).size()));
            }
        });
        byOwner.forEach((owner, owned) -> {
            if (!live.contains(owner)) {
                departed.putIfAbsent(owner, new DepartedInstance(owner, owned.size(), null, null, null, null, null));
            }
        });
        return List.copyOf(departed.values());
    }

    private static List<PartitionView> partitions(Map<Integer, PartitionState> states, Set<String> live,
            IntToLongFunction pending) {
        List<PartitionView> views = new ArrayList<>(PartitionHasher.PARTITION_COUNT);
        for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
            PartitionState state = states.get(partition);
            String owner = state == null ? null : state.owner();
            views.add(new PartitionView(partition, owner, owner != null && live.contains(owner),
                    state == null ? null : state.epoch(), pending.applyAsLong(partition)));
        }
        return views;
    }

    /** A partition's detail: owner and epoch as the snapshot has them, its open records as just counted. */
    static PartitionDetail partitionDetail(LatestReading.Reading<OutboxSnapshot> reading, PartitionRecords records) {
        OutboxSnapshot snapshot = reading.value();
        PartitionState state = snapshot == null ? null : snapshot.partitions().stream()
                .filter(candidate -> candidate.partition() == records.partition()).findFirst().orElse(null);
        String owner = state == null ? null : state.owner();
        boolean ownerLive = owner != null && snapshot != null && snapshot.liveInstances().stream()
                .anyMatch(instance -> instance.instanceId().equals(owner));
        return new PartitionDetail(records.partition(), owner, ownerLive, state == null ? null : state.epoch(),
                records.readAt(), records.newRecords(), records.notYetDue(), records.deferred(), records.failed(),
                records.oldestNewCreatedAt(), age(records.readAt(), records.oldestNewCreatedAt()),
                records.oldestFailedCreatedAt(), age(records.readAt(), records.oldestFailedCreatedAt()));
    }

    private static @Nullable Double age(Instant readAt, @Nullable Instant createdAt) {
        return createdAt == null ? null : seconds(Duration.between(createdAt, readAt));
    }

    /**
     * FAILED records and unreadable FAILED rows alike, in the page's order, with payload and headers when read, and the
     * NEW records behind each that {@code newBehind} counted.
     */
    static List<FailedRecordView> failedRecords(FetchedRows rows, FailedRecordOrder order,
            Map<String, Long> newBehind) {
        List<FailedRecordView> views = new ArrayList<>();
        for (OutboxRecord record : rows.records()) {
            views.add(new FailedRecordView(FailedRecord.of(record), record.getPayload(), record.getHeaders(),
                    newBehind.get(record.getId())));
        }
        for (UnreadableRow row : rows.unreadable()) {
            views.add(new FailedRecordView(FailedRecord.of(row), null, Map.of(), null));
        }
        Comparator<Long> bySequence = order == FailedRecordOrder.NEWEST_FIRST ? Comparator.reverseOrder()
                : Comparator.naturalOrder();
        views.sort(Comparator.comparing((FailedRecordView view) -> view.record().sequence(),
                Comparator.nullsLast(bySequence)));
        return views;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }

    /**
     * The page's live figures.
     *
     * @param outbox null for the default outbox
     * @param outboxes the names of {@code outbox.outboxes}, which the page offers to switch to
     * @param takenAt when the monitor read them; null before its first read answered
     * @param stale whether they are not current (the last read failed or is unanswered)
     * @param records records per status
     * @param departed instances seen live within the hour and owners in the partition table, not live now, by id
     * @param partitions all 256, in order
     */
    record Overview(@Nullable String outbox, List<String> outboxes, @Nullable Instant takenAt, boolean stale,
            @Nullable Double snapshotAgeSeconds, double staleTimeoutSeconds, Map<String, Long> records,
            List<InstanceView> instances, List<DepartedInstance> departed, List<PartitionView> partitions,
            List<DeferredRecords> deferred, OperationsState operations) {
    }

    /** A live instance as the actuator reports it; {@code late} past half the stale timeout without a heartbeat. */
    record InstanceView(Member instance, boolean late) {
    }

    /**
     * An instance no longer live: seen live within the hour (killed, stopped, or cut off), or named as owner by the
     * partition table. What the history saw is null for an owner it never saw live.
     *
     * @param ownedPartitions the partitions the partition table still gives it (0 once taken over)
     * @param lastHeartbeat its last heartbeat as last seen (database clock)
     * @param lastSeenAt when the monitor last saw it live
     */
    record DepartedInstance(String id, int ownedPartitions, @Nullable String hostname, @Nullable Integer port,
            @Nullable String version, @Nullable Instant lastHeartbeat, @Nullable Instant lastSeenAt) {

        static DepartedInstance of(SeenInstance seen, int ownedPartitions) {
            InstanceState state = seen.state();
            InstanceCapabilities capabilities = state.capabilities();
            return new DepartedInstance(state.instanceId(), ownedPartitions, state.hostname(), state.port(),
                    capabilities == null ? null : capabilities.version(), state.lastHeartbeat(), seen.seenAt());
        }
    }

    /**
     * @param ownerLive whether the owner is a live instance
     * @param epoch null outside a cluster
     * @param pending NEW records
     */
    record PartitionView(int partition, @Nullable String owner, boolean ownerLive, @Nullable Long epoch,
            long pending) {
    }

    /**
     * A clicked partition.
     *
     * @param countedAt when its records were counted (the time {@code notYetDue} and the ages are judged by)
     * @param notYetDue NEW records whose next attempt is after {@code countedAt}: a retry's back-off, a delayed
     *     delivery, or a deferral
     * @param deferred NEW records an instance without their handler put off and no attempt has run for since
     */
    record PartitionDetail(int partition, @Nullable String owner, boolean ownerLive, @Nullable Long epoch,
            Instant countedAt, long newRecords, long notYetDue, long deferred, long failed,
            @Nullable Instant oldestNewCreatedAt, @Nullable Double oldestNewAgeSeconds,
            @Nullable Instant oldestFailedCreatedAt, @Nullable Double oldestFailedAgeSeconds) {
    }

    /**
     * A FAILED record as the actuator reports it, with what the detail view shows besides.
     *
     * @param newBehind the NEW records of its lane (aggregate and handler) after it, which stop-on-first-failure
     *         holds back while it is FAILED; null when not counted (an unreadable row, or no longer FAILED)
     */
    record FailedRecordView(FailedRecord record, @Nullable String payload, Map<String, String> headers,
            @Nullable Long newBehind) {
    }

    /** Whether the page may offer operations, and if not, why and the property that would allow them. */
    record OperationsState(boolean allowed, @Nullable String refusal, @Nullable String property) {
    }
}
