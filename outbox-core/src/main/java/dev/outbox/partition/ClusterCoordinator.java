package dev.outbox.partition;

import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares the 256 partitions among the live instances of a cluster and tells the processor which ones this instance
 * may process ({@link PartitionOwnership}).
 *
 * <ul>
 *   <li><b>Membership.</b> The instance registers in the instance table and heartbeats every heartbeat interval on a
 *       thread of its own (give it an {@link InstanceStore} on a connection of its own, so a busy pool cannot delay
 *       it). Liveness is judged by the database's clock only.</li>
 *   <li><b>Assignment.</b> Every rebalance interval the coordinator reads the live instances and the partition table,
 *       computes the {@link PartitionAssignment} (balanced, sticky, the same on every instance) and moves only its
 *       own partitions: it releases what it must give up and claims what it should have.</li>
 *   <li><b>Hand-over.</b> A partition to give up is first withdrawn from the processor; once no record of it is in
 *       flight, it is released, and its new owner claims it with the next epoch. A partition of a dead instance is
 *       claimable only once that instance is stale.</li>
 *   <li><b>Fencing.</b> Every claim increases the partition's epoch and status writes are conditional on it. If this
 *       instance has not heartbeated successfully for {@code staleTimeout − heartbeatInterval} (by its own monotonic
 *       clock), it stops handing out partitions before any other instance may claim them, and when it regains
 *       contact it starts over from what the table says.</li>
 * </ul>
 */
public final class ClusterCoordinator implements PartitionOwnership, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterCoordinator.class);
    private static final long ERROR_LOG_INTERVAL_NANOS = TimeUnit.MINUTES.toNanos(1);
    /** With unchanged members, every how many rebalance rounds the partition table is read anyway. */
    private static final int FULL_REBALANCE_EVERY = 15;

    private final InstanceStore instances;
    private final InstanceStore heartbeats;
    private final PartitionStore partitions;
    private final String instanceId;
    private final String hostname;
    private final int port;
    private final Duration heartbeatInterval;
    private final Duration staleTimeout;
    private final Duration rebalanceInterval;
    private final IntPredicate handling;
    private final Runnable partitionsGained;
    private final PartitionListener partitionListener;
    private final LongSupplier nanoClock;
    private final long leaseNanos;

    /** Partition → epoch of every partition this instance holds in the table, releasing ones included. */
    private final Map<Integer, Long> held = new HashMap<>();
    /** Held partitions withdrawn from the processor, to be released once idle. */
    private final Set<Integer> releasing = new HashSet<>();
    private volatile OwnedPartitions dispatchable = OwnedPartitions.none();
    /** The partitions the listener was last told of. */
    private OwnedPartitions notified = OwnedPartitions.none();
    private volatile long lastHeartbeatNanos;
    private volatile boolean heartbeatSucceeded;
    private volatile boolean shuttingDown;
    private volatile boolean leaseLostLogged;
    private boolean closed;

    private @Nullable ScheduledExecutorService heartbeatThread;
    private @Nullable ScheduledExecutorService rebalanceThread;
    private long lastErrorLogNanos;
    /** Rebalance-thread state: whether the last full rebalance found the whole table as the target has it. */
    private volatile boolean settled;
    private Map<String, InstanceStatus> lastMembership = Map.of();
    private int quietRounds;
    private int lastLoggedCount = -1;
    private int lastLoggedLive = -1;

    private ClusterCoordinator(Builder builder) {
        this.instances = Objects.requireNonNull(builder.instances, "ClusterCoordinator.builder(): instanceStore");
        this.heartbeats = builder.heartbeats != null ? builder.heartbeats : instances;
        this.partitions = Objects.requireNonNull(builder.partitions, "ClusterCoordinator.builder(): partitionStore");
        this.instanceId = requireText("instanceId", builder.instanceId);
        this.hostname = builder.hostname;
        this.port = builder.port;
        this.heartbeatInterval = positive("outbox.instance.heartbeat-interval-seconds", builder.heartbeatInterval);
        this.staleTimeout = positive("outbox.instance.stale-instance-timeout-seconds", builder.staleTimeout);
        this.rebalanceInterval = positive("outbox.instance.new-instance-detection-interval-seconds",
                builder.rebalanceInterval);
        if (staleTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("outbox.instance.stale-instance-timeout-seconds (" + staleTimeout
                    + ") must be greater than outbox.instance.heartbeat-interval-seconds (" + heartbeatInterval + ")");
        }
        this.handling = builder.handling;
        this.partitionsGained = builder.partitionsGained;
        this.partitionListener = builder.partitionListener;
        this.nanoClock = builder.nanoClock;
        this.leaseNanos = staleTimeout.minus(heartbeatInterval).toNanos();
    }

    public static Builder builder() {
        return new Builder();
    }

    public String instanceId() {
        return instanceId;
    }

    /** Registers this instance, then heartbeats and rebalances in the background until {@link #close()}. */
    public synchronized void start() {
        if (heartbeatThread != null) {
            return;
        }
        // A coordinator stopped by a lifecycle may be started again: it rejoins as a new member.
        closed = false;
        shuttingDown = false;
        heartbeatSucceeded = false;
        log.info("Outbox instance {} joining the cluster: heartbeat every {}, stale after {}, rebalance every {}",
                instanceId, heartbeatInterval, staleTimeout, rebalanceInterval);
        heartbeatThread = Executors.newSingleThreadScheduledExecutor(daemon("outbox-heartbeat"));
        rebalanceThread = Executors.newSingleThreadScheduledExecutor(daemon("outbox-rebalance"));
        // Register and take a first share before returning, so processing can start at once.
        heartbeatSafely();
        rebalanceSafely();
        heartbeatThread.scheduleWithFixedDelay(this::heartbeatSafely, heartbeatInterval.toMillis(),
                heartbeatInterval.toMillis(), TimeUnit.MILLISECONDS);
        rebalanceThread.scheduleWithFixedDelay(this::rebalanceSafely, rebalanceInterval.toMillis(),
                rebalanceInterval.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Override
    public OwnedPartitions ownedPartitions() {
        if (shuttingDown) {
            return OwnedPartitions.none();
        }
        if (!leaseValid()) {
            if (!leaseLostLogged && heartbeatSucceeded) {
                leaseLostLogged = true;
                log.warn("Outbox instance {} has not heartbeated for {} or more; it stops processing until it has",
                        instanceId, Duration.ofNanos(leaseNanos));
            }
            return OwnedPartitions.none();
        }
        return dispatchable;
    }

    @Override
    public synchronized void lost(int partition, long epoch) {
        Long heldEpoch = held.get(partition);
        if (heldEpoch != null && heldEpoch == epoch) {
            settled = false;
            held.remove(partition);
            releasing.remove(partition);
            publish();
            notifyPartitionChanges();
            log.info("Outbox instance {} lost partition {} (epoch {}) to another instance", instanceId, partition,
                    epoch);
        }
    }

    /** One heartbeat, as the background thread does it; public for tests that drive the coordinator by hand. */
    public void heartbeat() {
        long sent = nanoClock.getAsLong();
        boolean expired = heartbeatSucceeded && !leaseValid();
        boolean present;
        if (heartbeatSucceeded) {
            present = heartbeats.heartbeat(instanceId);
            if (!present) {
                log.warn("Outbox instance {} was missing from the instance table (removed as stale); registering "
                        + "again", instanceId);
                heartbeats.register(instanceId, hostname, port);
            }
        } else {
            // First contact, or none yet: (re-)register, which a restart with a stable id needs anyway.
            heartbeats.register(instanceId, hostname, port);
            present = false;
        }
        if (expired || !present) {
            // Others may have claimed our partitions while we were out of touch: forget them all, claim afresh.
            resetOwnership();
        }
        lastHeartbeatNanos = sent;
        heartbeatSucceeded = true;
        if (leaseLostLogged) {
            leaseLostLogged = false;
            log.info("Outbox instance {} heartbeats again", instanceId);
        }
    }

    /** One rebalance, as the background thread does it; public for tests that drive the coordinator by hand. */
    public void rebalance() {
        if (shuttingDown || !leaseValid()) {
            return;
        }
        List<InstanceState> live = instances.findLive(staleTimeout);
        Map<String, InstanceStatus> membership = new TreeMap<>();
        Set<String> liveIds = new HashSet<>();
        Set<String> activeIds = new TreeSet<>();
        for (InstanceState instance : live) {
            membership.put(instance.instanceId(), instance.status());
            liveIds.add(instance.instanceId());
            if (instance.status() == InstanceStatus.ACTIVE) {
                activeIds.add(instance.instanceId());
            }
        }
        if (!activeIds.contains(instanceId)) {
            return; // not (yet) registered as live: the heartbeat thread sees to that
        }
        // Quiet when nothing changes: with the same members and our share in hand, the table is read only now and
        // then, as a safety net. A join, a departure or a death changes the members.
        if (settled && membership.equals(lastMembership) && ++quietRounds < FULL_REBALANCE_EVERY) {
            return;
        }
        quietRounds = 0;
        lastMembership = membership;
        instances.removeStale(staleTimeout);
        List<PartitionState> rows = partitions.findAll();
        forgetPartitionsTakenOver(rows);
        List<@Nullable String> owners = new ArrayList<>(rows.size());
        rows.forEach(row -> owners.add(row.owner()));
        PartitionAssignment target = PartitionAssignment.compute(owners, activeIds);
        withdraw(target);
        releaseIdle();
        if (claim(target, rows, liveIds) > 0) {
            partitionsGained.run();
        }
        // Settled only once the whole table, as read this round, matches the target: while any instance still moves
        // partitions the target itself can change (it favours current owners), so everyone keeps looking.
        boolean tableMatchesTarget = rows.stream()
                .allMatch(row -> Objects.equals(row.owner(), target.ownerOf(row.partition())));
        synchronized (this) {
            settled = tableMatchesTarget && releasing.isEmpty();
        }
        notifyPartitionChanges();
        logChanges(activeIds.size());
    }

    /**
     * Stops handing out partitions and marks this instance SHUTTING_DOWN, so no partition is assigned to it any more.
     * Call before stopping the processor; then {@link #close()}.
     */
    public void beginShutdown() {
        shuttingDown = true;
        try {
            instances.markShuttingDown(instanceId);
        } catch (RuntimeException e) {
            log.warn("Outbox instance {} could not mark itself SHUTTING_DOWN: {}", instanceId, e.toString());
        }
    }

    /**
     * Releases every partition this instance holds so others can claim them at once, removes its row and stops the
     * background threads. Call after the processor has stopped.
     */
    @Override
    public void close() {
        shuttingDown = true;
        ScheduledExecutorService rebalancer;
        ScheduledExecutorService heartbeater;
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            rebalancer = rebalanceThread;
            heartbeater = heartbeatThread;
            rebalanceThread = null;
            heartbeatThread = null;
        }
        if (rebalancer != null) {
            shutdownAndWait(rebalancer);
        }
        int released = 0;
        try {
            for (PartitionState row : partitions.findAll()) {
                if (instanceId.equals(row.owner()) && partitions.release(row.partition(), row.epoch(), instanceId)) {
                    released++;
                }
            }
            instances.remove(instanceId);
        } catch (RuntimeException e) {
            log.warn("Outbox instance {} could not release its partitions; others take them once it is stale: {}",
                    instanceId, e.toString());
        } finally {
            if (heartbeater != null) {
                shutdownAndWait(heartbeater);
            }
            synchronized (this) {
                held.clear();
                releasing.clear();
                publish();
            }
        }
        log.info("Outbox instance {} left the cluster and released {} partition(s)", instanceId, released);
    }

    /**
     * Whether this instance's last heartbeat is recent enough that it may still act on its partitions: false before the
     * first heartbeat, and once heartbeats have failed for longer than the stale timeout minus one heartbeat interval.
     */
    public boolean isInContact() {
        return leaseValid();
    }

    /** Time since the last successful heartbeat, by the monotonic clock; empty before the first one. */
    public Optional<Duration> sinceLastHeartbeat() {
        return heartbeatSucceeded ? Optional.of(Duration.ofNanos(nanoClock.getAsLong() - lastHeartbeatNanos))
                : Optional.empty();
    }

    /** True from {@link #beginShutdown()} or {@link #close()} on. */
    public boolean isShuttingDown() {
        return shuttingDown;
    }

    private boolean leaseValid() {
        return heartbeatSucceeded && nanoClock.getAsLong() - lastHeartbeatNanos < leaseNanos;
    }

    private synchronized void resetOwnership() {
        settled = false;
        if (!held.isEmpty()) {
            log.warn("Outbox instance {} drops its {} partition(s) after losing contact; it claims them anew",
                    instanceId, held.size());
        }
        held.clear();
        releasing.clear();
        publish();
        notifyPartitionChanges();
    }

    /** Partitions the table shows under another owner or epoch were taken over while we were away. */
    private synchronized void forgetPartitionsTakenOver(List<PartitionState> rows) {
        boolean changed = held.entrySet().removeIf(entry -> {
            PartitionState row = rows.get(entry.getKey());
            return !instanceId.equals(row.owner()) || row.epoch() != entry.getValue();
        });
        if (changed) {
            releasing.retainAll(held.keySet());
            publish();
        }
    }

    /** Withdraws from the processor what the target gives to others; takes back what it gives to us again. */
    private synchronized void withdraw(PartitionAssignment target) {
        for (int partition : held.keySet()) {
            if (instanceId.equals(target.ownerOf(partition))) {
                releasing.remove(partition);
            } else {
                releasing.add(partition);
            }
        }
        publish();
    }

    private void releaseIdle() {
        Map<Integer, Long> idle = new TreeMap<>();
        synchronized (this) {
            for (int partition : releasing) {
                if (!handling.test(partition)) {
                    idle.put(partition, held.get(partition));
                }
            }
        }
        for (Map.Entry<Integer, Long> entry : idle.entrySet()) {
            partitions.release(entry.getKey(), entry.getValue(), instanceId);
            synchronized (this) {
                held.remove(entry.getKey());
                releasing.remove(entry.getKey());
            }
        }
    }

    /** Claims what the target gives to this instance and is free; returns how many claims succeeded. */
    private int claim(PartitionAssignment target, List<PartitionState> rows, Set<String> liveIds) {
        int claimed = 0;
        for (PartitionState row : rows) {
            int partition = row.partition();
            if (!instanceId.equals(target.ownerOf(partition))) {
                continue;
            }
            synchronized (this) {
                if (held.containsKey(partition)) {
                    continue;
                }
            }
            String owner = row.owner();
            boolean claimable = owner == null || owner.equals(instanceId) || !liveIds.contains(owner);
            if (claimable && partitions.claim(partition, row.epoch(), instanceId, staleTimeout)) {
                synchronized (this) {
                    if (shuttingDown) {
                        partitions.release(partition, row.epoch() + 1, instanceId);
                        return claimed;
                    }
                    held.put(partition, row.epoch() + 1);
                    publish();
                }
                claimed++;
            }
        }
        return claimed;
    }

    /** Makes the processor's view match {@link #held} minus {@link #releasing}. Caller holds the lock. */
    private void publish() {
        Map<Integer, Long> view = new HashMap<>(held);
        view.keySet().removeAll(releasing);
        dispatchable = OwnedPartitions.withEpochs(view);
    }

    /** Tells the listener how the partitions changed since it was last told: once per rebalance, reset or loss. */
    private synchronized void notifyPartitionChanges() {
        OwnedPartitions now = dispatchable;
        Set<Integer> gained = new TreeSet<>();
        now.stream().filter(partition -> !notified.contains(partition)).forEach(gained::add);
        Set<Integer> lost = new TreeSet<>();
        notified.stream().filter(partition -> !now.contains(partition)).forEach(lost::add);
        notified = now;
        if (!gained.isEmpty() || !lost.isEmpty()) {
            try {
                partitionListener.onPartitionsChanged(gained, lost);
            } catch (RuntimeException e) {
                log.warn("Outbox partition listener failed", e);
            }
        }
    }

    private void logChanges(int liveCount) {
        int count;
        synchronized (this) {
            count = held.size() - releasing.size();
        }
        if (count != lastLoggedCount || liveCount != lastLoggedLive) {
            lastLoggedCount = count;
            lastLoggedLive = liveCount;
            log.info("Outbox instance {} owns {} of 256 partitions; {} active instance(s)", instanceId, count,
                    liveCount);
        }
    }

    private void heartbeatSafely() {
        try {
            heartbeat();
        } catch (RuntimeException e) {
            logFailure("heartbeat", e);
        }
    }

    private void rebalanceSafely() {
        try {
            rebalance();
        } catch (RuntimeException e) {
            logFailure("rebalance", e);
        }
    }

    private synchronized void logFailure(String what, RuntimeException e) {
        long now = nanoClock.getAsLong();
        if (lastErrorLogNanos == 0 || now - lastErrorLogNanos >= ERROR_LOG_INTERVAL_NANOS) {
            lastErrorLogNanos = now;
            log.warn("Outbox instance {}: {} failed (logged at most once a minute): {}", instanceId, what,
                    e.toString());
        }
    }

    private static void shutdownAndWait(ScheduledExecutorService executor) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }

    private static Duration positive(String property, @Nullable Duration value) {
        Objects.requireNonNull(value, property + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive but was " + value);
        }
        return value;
    }

    private static String requireText(String name, @Nullable String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(name + " must not be blank");
        }
        if (value.length() > 255) {
            throw new IllegalArgumentException(name + " is " + value.length() + " characters; the limit is 255");
        }
        return value;
    }

    /** Assembles a {@link ClusterCoordinator}; instance store, partition store and instance id are required. */
    public static final class Builder {

        /** {@code outbox.instance.heartbeat-interval-seconds}. */
        public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(2);
        /** {@code outbox.instance.stale-instance-timeout-seconds}. */
        public static final Duration DEFAULT_STALE_TIMEOUT = Duration.ofSeconds(10);
        /** {@code outbox.instance.new-instance-detection-interval-seconds}. */
        public static final Duration DEFAULT_REBALANCE_INTERVAL = Duration.ofSeconds(2);

        private @Nullable InstanceStore instances;
        private @Nullable InstanceStore heartbeats;
        private @Nullable PartitionStore partitions;
        private @Nullable String instanceId;
        private String hostname = "unknown";
        private int port;
        private Duration heartbeatInterval = DEFAULT_HEARTBEAT_INTERVAL;
        private Duration staleTimeout = DEFAULT_STALE_TIMEOUT;
        private Duration rebalanceInterval = DEFAULT_REBALANCE_INTERVAL;
        private IntPredicate handling = partition -> false;
        private Runnable partitionsGained = () -> { };
        private PartitionListener partitionListener = PartitionListener.NOOP;
        private LongSupplier nanoClock = System::nanoTime;

        private Builder() {
        }

        public Builder instanceStore(InstanceStore instances) {
            this.instances = Objects.requireNonNull(instances, "instanceStore");
            return this;
        }

        /** The store heartbeats go through; give it a connection of its own. Default: the instance store. */
        public Builder heartbeatStore(InstanceStore heartbeats) {
            this.heartbeats = Objects.requireNonNull(heartbeats, "heartbeatStore");
            return this;
        }

        public Builder partitionStore(PartitionStore partitions) {
            this.partitions = Objects.requireNonNull(partitions, "partitionStore");
            return this;
        }

        public Builder instanceId(String instanceId) {
            this.instanceId = instanceId;
            return this;
        }

        public Builder hostname(String hostname) {
            this.hostname = Objects.requireNonNull(hostname, "hostname");
            return this;
        }

        public Builder port(int port) {
            this.port = port;
            return this;
        }

        public Builder heartbeatInterval(Duration heartbeatInterval) {
            this.heartbeatInterval = heartbeatInterval;
            return this;
        }

        public Builder staleTimeout(Duration staleTimeout) {
            this.staleTimeout = staleTimeout;
            return this;
        }

        public Builder rebalanceInterval(Duration rebalanceInterval) {
            this.rebalanceInterval = rebalanceInterval;
            return this;
        }

        /** Whether a record of the partition is in flight; typically {@code processor::isHandling}. */
        public Builder handling(IntPredicate handling) {
            this.handling = Objects.requireNonNull(handling, "handling");
            return this;
        }

        /** Told of every change of the partitions this instance processes, e.g. to count rebalances. */
        public Builder partitionListener(PartitionListener partitionListener) {
            this.partitionListener = Objects.requireNonNull(partitionListener, "partitionListener");
            return this;
        }

        /** Called after a rebalance claimed partitions; typically {@code processor::wakeUp}. */
        public Builder partitionsGained(Runnable partitionsGained) {
            this.partitionsGained = Objects.requireNonNull(partitionsGained, "partitionsGained");
            return this;
        }

        /** The monotonic clock of the lease, in nanoseconds; {@code System::nanoTime} unless a test moves it. */
        public Builder nanoClock(LongSupplier nanoClock) {
            this.nanoClock = Objects.requireNonNull(nanoClock, "nanoClock");
            return this;
        }

        public ClusterCoordinator build() {
            return new ClusterCoordinator(this);
        }
    }
}
