package dev.outbox.monitoring;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.PartitionState;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.jspecify.annotations.Nullable;

/**
 * The outbox as one instance saw it at {@link #takenAt()}: records per status, the backlog per partition and handler,
 * this instance's partitions, and the cluster with what each instance can process. Immutable; figures derived from it
 * never query anything.
 */
public final class OutboxSnapshot {

    private static final Set<String> KNOWN_STATUSES = Arrays.stream(OutboxRecordStatus.values())
            .map(OutboxRecordStatus::name).collect(Collectors.toUnmodifiableSet());

    private final Instant takenAt;
    private final Map<OutboxRecordStatus, Long> recordCounts;
    private final boolean completedCounted;
    private final Map<String, Long> unknownStatusCounts;
    private final long[] pendingByPartition;
    private final @Nullable Instant[] oldestPendingByPartition;
    private final OwnedPartitions owned;
    private final List<InstanceState> liveInstances;
    private final List<PartitionState> partitions;
    private final List<DeferredRecords> deferred;

    /**
     * @param storedStatusCounts rows by status as stored; a known status absent has none, but COMPLETED is counted
     *     only when {@code completedCounted}
     * @param localCapabilities what this instance can process, or null when unknown: outside a cluster it alone
     *     decides which records are deferred
     */
    OutboxSnapshot(Instant takenAt, Map<String, Long> storedStatusCounts, boolean completedCounted,
            List<PartitionBacklog> backlog,
            OwnedPartitions owned, List<InstanceState> liveInstances, List<PartitionState> partitions,
            @Nullable InstanceCapabilities localCapabilities) {
        this.takenAt = Objects.requireNonNull(takenAt, "takenAt");
        EnumMap<OutboxRecordStatus, Long> counts = new EnumMap<>(OutboxRecordStatus.class);
        for (OutboxRecordStatus status : OutboxRecordStatus.values()) {
            if (completedCounted || status != OutboxRecordStatus.COMPLETED) {
                counts.put(status, storedStatusCounts.getOrDefault(status.name(), 0L));
            }
        }
        this.recordCounts = Collections.unmodifiableMap(counts);
        this.completedCounted = completedCounted;
        Map<String, Long> unknown = new TreeMap<>();
        storedStatusCounts.forEach((status, count) -> {
            if (!KNOWN_STATUSES.contains(status)) {
                unknown.merge(status, count, Long::sum);
            }
        });
        this.unknownStatusCounts = Collections.unmodifiableMap(unknown);
        this.pendingByPartition = new long[PartitionHasher.PARTITION_COUNT];
        this.oldestPendingByPartition = new Instant[PartitionHasher.PARTITION_COUNT];
        for (PartitionBacklog group : backlog) {
            int partition = group.partition();
            pendingByPartition[partition] += group.pending();
            Instant oldest = oldestPendingByPartition[partition];
            if (oldest == null || group.oldestCreatedAt().isBefore(oldest)) {
                oldestPendingByPartition[partition] = group.oldestCreatedAt();
            }
        }
        this.owned = Objects.requireNonNull(owned, "owned");
        this.liveInstances = List.copyOf(liveInstances);
        this.partitions = List.copyOf(partitions);
        this.deferred = deferred(backlog, localCapabilities);
    }

    /**
     * The groups whose partition's processing instance lacks their handler, by handler id. In a cluster that is the
     * partition's live owner, when it said what it can process (an instance that did not is taken to have every
     * handler); outside one it is this instance.
     */
    private List<DeferredRecords> deferred(List<PartitionBacklog> backlog,
            @Nullable InstanceCapabilities localCapabilities) {
        Map<String, InstanceState> live = new HashMap<>();
        liveInstances.forEach(instance -> live.put(instance.instanceId(), instance));
        @Nullable String[] owners = new String[PartitionHasher.PARTITION_COUNT];
        partitions.forEach(partition -> owners[partition.partition()] = partition.owner());
        Map<Optional<String>, DeferredRecords> byHandler = new TreeMap<>(
                Comparator.comparing((Optional<String> id) -> id.orElse("")));
        for (PartitionBacklog group : backlog) {
            boolean waits;
            if (partitions.isEmpty()) {
                waits = localCapabilities != null && !localCapabilities.takes(group.handlerId());
            } else {
                String owner = owners[group.partition()];
                InstanceState processing = owner == null ? null : live.get(owner);
                waits = processing != null && !processing.takes(group.handlerId());
            }
            if (waits) {
                byHandler.merge(Optional.ofNullable(group.handlerId()), new DeferredRecords(group.handlerId(),
                        group.pending(), group.oldestCreatedAt(), takers(group.handlerId())), OutboxSnapshot::sum);
            }
        }
        return List.copyOf(byHandler.values());
    }

    private List<String> takers(@Nullable String handlerId) {
        return liveInstances.stream().filter(instance -> instance.takes(handlerId)).map(InstanceState::instanceId)
                .toList();
    }

    private static DeferredRecords sum(DeferredRecords a, DeferredRecords b) {
        Instant oldest = a.oldestCreatedAt().isBefore(b.oldestCreatedAt()) ? a.oldestCreatedAt() : b.oldestCreatedAt();
        return new DeferredRecords(a.handlerId(), a.records() + b.records(), oldest, a.takenBy());
    }

    public Instant takenAt() {
        return takenAt;
    }

    /** Records per status: every status the monitor counts, COMPLETED only when {@link #completedCounted()}. */
    public Map<OutboxRecordStatus, Long> recordCounts() {
        return recordCounts;
    }

    /** Whether {@link #recordCounts()} has the COMPLETED records ({@code OutboxMonitor.countsCompletedRecords()}). */
    public boolean completedCounted() {
        return completedCounted;
    }

    /**
     * The records of a status.
     *
     * @throws IllegalStateException for COMPLETED when the monitor does not count them, rather than a made-up 0
     */
    public long recordCount(OutboxRecordStatus status) {
        Long count = recordCounts.get(status);
        if (count == null) {
            throw new IllegalStateException("COMPLETED records are not counted: the monitor counts them only when "
                    + "built with countCompletedRecords(true) (outbox.metrics.count-completed-records=true)");
        }
        return count;
    }

    /**
     * Rows whose status is none the library knows, by the status as stored ({@code 'new'}, say: written by SQL); empty
     * when there are none. No due fetch reads them where the database compares text exactly: the processor finds and
     * fails them apart, as poison rows, within a minute.
     */
    public Map<String, Long> unknownStatusCounts() {
        return unknownStatusCounts;
    }

    /** How many rows {@link #unknownStatusCounts()} counts. */
    public long unknownStatusCount() {
        return unknownStatusCounts.values().stream().mapToLong(Long::longValue).sum();
    }

    /** NEW records of one partition. */
    public long pendingIn(int partition) {
        return pendingByPartition[partition];
    }

    /** The partitions this instance owned. */
    public OwnedPartitions ownedPartitions() {
        return owned;
    }

    public int assignedPartitionCount() {
        return owned.size();
    }

    /** NEW records in the partitions this instance owns. */
    public long pendingInOwnedPartitions() {
        return owned.stream().mapToLong(p -> pendingByPartition[p]).sum();
    }

    /** The largest NEW count of one owned partition; 0 when none is owned. */
    public long maxPendingInAnOwnedPartition() {
        return owned.stream().mapToLong(p -> pendingByPartition[p]).max().orElse(0);
    }

    /** NEW records per owned partition, on average; 0 when none is owned. */
    public double averagePendingPerOwnedPartition() {
        return owned.isEmpty() ? 0 : (double) pendingInOwnedPartitions() / owned.size();
    }

    /** Creation time of the oldest NEW record of any partition. */
    public Optional<Instant> oldestPending() {
        return Arrays.stream(oldestPendingByPartition).filter(Objects::nonNull).min(Instant::compareTo);
    }

    /** How old the oldest NEW record was when the snapshot was taken; zero when there is none. */
    public Duration oldestPendingAge() {
        return oldestPending().map(oldest -> Duration.between(oldest, takenAt)).filter(age -> !age.isNegative())
                .orElse(Duration.ZERO);
    }

    /**
     * NEW records waiting for a handler that the instance processing their partition does not have, by handler id:
     * during a rolling deploy, records written by a newer version in partitions an older one still owns.
     */
    public List<DeferredRecords> deferredRecords() {
        return deferred;
    }

    /** How many records {@link #deferredRecords()} counts. */
    public long deferredRecordCount() {
        return deferred.stream().mapToLong(DeferredRecords::records).sum();
    }

    /** Of the {@link #deferredRecords()}, how many no live instance has the handler for: a stuck deploy. */
    public long unhandledRecordCount() {
        return deferred.stream().filter(DeferredRecords::unhandled).mapToLong(DeferredRecords::records).sum();
    }

    /** Instances whose heartbeat was fresh; empty when this instance does not take part in a cluster. */
    public List<InstanceState> liveInstances() {
        return liveInstances;
    }

    /** The partition table (owner and epoch of each of the 256); empty outside a cluster. */
    public List<PartitionState> partitions() {
        return partitions;
    }

    public int clusterPartitionCount() {
        return PartitionHasher.PARTITION_COUNT;
    }

    /** Partitions per live instance, on average; 0 without live instances. */
    public double averagePartitionsPerInstance() {
        return liveInstances.isEmpty() ? 0 : (double) PartitionHasher.PARTITION_COUNT / liveInstances.size();
    }

    /** Partitions without a live owner; 0 outside a cluster, where this instance handles every partition. */
    public int unassignedPartitionCount() {
        if (partitions.isEmpty()) {
            return 0;
        }
        Set<String> live = liveInstances.stream().map(InstanceState::instanceId).collect(Collectors.toSet());
        return (int) partitions.stream().filter(p -> p.owner() == null || !live.contains(p.owner())).count();
    }

    /** Owner of each owned partition, by instance id; unowned partitions are left out. */
    public Map<String, Set<Integer>> partitionsByOwner() {
        Map<String, Set<Integer>> byOwner = new TreeMap<>();
        for (PartitionState partition : partitions) {
            if (partition.owner() != null) {
                byOwner.computeIfAbsent(partition.owner(), owner -> new TreeSet<>())
                        .add(partition.partition());
            }
        }
        byOwner.replaceAll((owner, owned) -> Collections.unmodifiableSet(owned));
        return Collections.unmodifiableMap(byOwner);
    }
}
