package dev.outbox.testing;

import dev.outbox.internal.Checks;
import dev.outbox.partition.Fence;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * Thread-safe in-memory instance and partition tables, for tests of the cluster coordination without a database. The
 * given clock plays the database's clock (a {@link MutableClock} lets a test move it); times are kept at microsecond
 * precision as databases store them. Follows the same contract as the database stores (the shared contract tests run
 * against it).
 */
public final class InMemoryClusterStore implements InstanceStore, PartitionStore {

    private final Clock clock;
    private final Map<String, InstanceRow> instances = new TreeMap<>();
    private final @Nullable String[] owners = new String[PartitionHasher.PARTITION_COUNT];
    private final long[] epochs = new long[PartitionHasher.PARTITION_COUNT];

    public InMemoryClusterStore(Clock clock) {
        this.clock = Objects.requireNonNull(clock, "clock");
    }

    @Override
    public synchronized void register(String instanceId, String hostname, int port) {
        register(instanceId, hostname, port, null);
    }

    @Override
    public synchronized void register(String instanceId, String hostname, int port,
            @Nullable InstanceCapabilities capabilities) {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(hostname, "hostname");
        Instant now = now();
        instances.put(instanceId, new InstanceRow(hostname, port, InstanceStatus.ACTIVE, now, now, capabilities,
                null));
    }

    /** Leaves no count of completed records: as a database row that a heartbeat without one sets to NULL. */
    @Override
    public synchronized boolean heartbeat(String instanceId) {
        return beat(instanceId, null);
    }

    @Override
    public synchronized boolean heartbeat(String instanceId, long recordsCompleted) {
        return beat(instanceId, recordsCompleted);
    }

    @Override
    public synchronized Optional<List<InstanceState>> heartbeatAndFindLive(String instanceId, long recordsCompleted,
            Duration staleTimeout) {
        return beat(instanceId, recordsCompleted) ? Optional.of(findLive(staleTimeout)) : Optional.empty();
    }

    private boolean beat(String instanceId, @Nullable Long recordsCompleted) {
        if (recordsCompleted != null) {
            Checks.atLeast("recordsCompleted", recordsCompleted, 0);
        }
        InstanceRow row = instances.get(Objects.requireNonNull(instanceId, "instanceId"));
        if (row == null) {
            return false;
        }
        instances.put(instanceId, row.withHeartbeat(now(), recordsCompleted));
        return true;
    }

    @Override
    public synchronized void markShuttingDown(String instanceId) {
        InstanceRow row = instances.get(Objects.requireNonNull(instanceId, "instanceId"));
        if (row != null) {
            instances.put(instanceId, new InstanceRow(row.hostname, row.port, InstanceStatus.SHUTTING_DOWN,
                    row.startedAt, row.lastHeartbeat, row.capabilities, row.recordsCompleted));
        }
    }

    @Override
    public synchronized void remove(String instanceId) {
        instances.remove(Objects.requireNonNull(instanceId, "instanceId"));
    }

    @Override
    public synchronized List<InstanceState> findLive(Duration staleTimeout) {
        Instant now = now();
        Instant cutoff = now.minus(Objects.requireNonNull(staleTimeout, "staleTimeout"));
        List<InstanceState> live = new ArrayList<>();
        instances.forEach((id, row) -> {
            if (!row.lastHeartbeat.isBefore(cutoff)) {
                live.add(new InstanceState(id, row.hostname, row.port, row.status, row.startedAt, row.lastHeartbeat,
                        Duration.between(row.lastHeartbeat, now), row.capabilities, row.recordsCompleted));
            }
        });
        return live;
    }

    @Override
    public synchronized int removeStale(Duration staleTimeout) {
        Instant cutoff = now().minus(Objects.requireNonNull(staleTimeout, "staleTimeout"));
        int before = instances.size();
        instances.values().removeIf(row -> row.lastHeartbeat.isBefore(cutoff));
        return before - instances.size();
    }

    @Override
    public synchronized List<PartitionState> findAll() {
        List<PartitionState> all = new ArrayList<>(owners.length);
        for (int partition = 0; partition < owners.length; partition++) {
            all.add(new PartitionState(partition, owners[partition], epochs[partition]));
        }
        return all;
    }

    @Override
    public synchronized boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout) {
        Objects.requireNonNull(instanceId, "instanceId");
        Instant cutoff = now().minus(Objects.requireNonNull(staleTimeout, "staleTimeout"));
        if (!exists(partition) || epochs[partition] != expectedEpoch) {
            return false;
        }
        String owner = owners[partition];
        @Nullable InstanceRow ownerRow = owner == null ? null : instances.get(owner);
        boolean takeable = owner == null || owner.equals(instanceId) || ownerRow == null
                || ownerRow.lastHeartbeat.isBefore(cutoff);
        if (takeable) {
            owners[partition] = instanceId;
            epochs[partition]++;
        }
        return takeable;
    }

    @Override
    public synchronized boolean release(int partition, long epoch, String instanceId) {
        Objects.requireNonNull(instanceId, "instanceId");
        if (!exists(partition) || epochs[partition] != epoch || !instanceId.equals(owners[partition])) {
            return false;
        }
        owners[partition] = null;
        return true;
    }

    /** Whether the partition table names the fence's owner under its epoch: the rule of every fenced write. */
    synchronized boolean holds(Fence fence) {
        int partition = fence.partition();
        return fence.owner() != null && fence.owner().equals(owners[partition]) && epochs[partition] == fence.epoch();
    }

    private boolean exists(int partition) {
        return partition >= 0 && partition < owners.length;
    }

    private Instant now() {
        return clock.instant().truncatedTo(ChronoUnit.MICROS);
    }

    /** One row of the instance table. */
    private record InstanceRow(String hostname, int port, InstanceStatus status, Instant startedAt,
            Instant lastHeartbeat, @Nullable InstanceCapabilities capabilities, @Nullable Long recordsCompleted) {

        InstanceRow withHeartbeat(Instant heartbeat, @Nullable Long completed) {
            return new InstanceRow(hostname, port, status, startedAt, heartbeat, capabilities, completed);
        }
    }
}
