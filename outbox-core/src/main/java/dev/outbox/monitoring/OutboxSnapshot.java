package dev.outbox.monitoring;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.PartitionState;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
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
 * The outbox as one instance saw it at {@link #takenAt()}: records per status, the backlog per partition, this
 * instance's partitions, and the cluster. Immutable; figures derived from it never query anything.
 */
public final class OutboxSnapshot {

    private final Instant takenAt;
    private final Map<OutboxRecordStatus, Long> recordCounts;
    private final long[] pendingByPartition;
    private final @Nullable Instant[] oldestPendingByPartition;
    private final OwnedPartitions owned;
    private final List<InstanceState> liveInstances;
    private final List<PartitionState> partitions;

    OutboxSnapshot(Instant takenAt, Map<OutboxRecordStatus, Long> recordCounts, List<PartitionBacklog> backlog,
            OwnedPartitions owned, List<InstanceState> liveInstances, List<PartitionState> partitions) {
        this.takenAt = Objects.requireNonNull(takenAt, "takenAt");
        EnumMap<OutboxRecordStatus, Long> counts = new EnumMap<>(OutboxRecordStatus.class);
        for (OutboxRecordStatus status : OutboxRecordStatus.values()) {
            counts.put(status, recordCounts.getOrDefault(status, 0L));
        }
        this.recordCounts = Collections.unmodifiableMap(counts);
        this.pendingByPartition = new long[PartitionHasher.PARTITION_COUNT];
        this.oldestPendingByPartition = new Instant[PartitionHasher.PARTITION_COUNT];
        for (PartitionBacklog partition : backlog) {
            pendingByPartition[partition.partition()] = partition.pending();
            oldestPendingByPartition[partition.partition()] = partition.oldestCreatedAt();
        }
        this.owned = Objects.requireNonNull(owned, "owned");
        this.liveInstances = List.copyOf(liveInstances);
        this.partitions = List.copyOf(partitions);
    }

    public Instant takenAt() {
        return takenAt;
    }

    /** Records per status; every status is present. */
    public Map<OutboxRecordStatus, Long> recordCounts() {
        return recordCounts;
    }

    public long recordCount(OutboxRecordStatus status) {
        return recordCounts.get(status);
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
