package dev.outbox.cluster;

import dev.outbox.internal.Checks;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.internal.FailureLog;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionStore;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Shares the 256 partitions among the live instances of a cluster and tells the processor which ones this instance
 * may process ({@link PartitionOwnership}). Its parts:
 *
 * <ul>
 *   <li>the {@link HeartbeatLease}: registration and heartbeats on a thread of its own (give it an
 *       {@link InstanceStore} on a connection of its own, so a busy pool cannot delay it), and the lease this instance
 *       holds its partitions under;</li>
 *   <li>the {@link Rebalancer}: every rebalance interval, the live instances and the partition table, the target
 *       assignment, and the releases and claims that move this instance's partitions toward it; by default a round
 *       follows a heartbeat and takes the live instances it read ({@link ClusterSchedule});</li>
 *   <li>the {@link PartitionLedger}: what this instance holds under which epoch, and what the processor may use.</li>
 * </ul>
 *
 * <p><b>Fencing.</b> Every claim increases the partition's epoch and the processor's status writes are fenced on it.
 * If this instance has not heartbeated for its lease ({@code staleTimeout − heartbeatInterval}, by its own monotonic
 * clock) it stops handing out partitions before any other instance may claim them, and when it regains contact it
 * starts over from what the table says.
 *
 * <p><b>Hand-over.</b> {@link #beginShutdown()} stops handing out partitions and marks the instance SHUTTING_DOWN;
 * once the processor has drained, {@link #close()} releases every partition and leaves the instance table. These
 * database steps together take at most the hand-over timeout, the database gone included: what they could not do in
 * time is logged, and the stale timeout does it (others take the partitions over); {@link HandOverBudget} keeps that
 * timeout.
 *
 * <p>A third of this file is its builder: the coordinator itself only delegates and runs the two threads.
 */
public final class ClusterCoordinator implements PartitionOwnership, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ClusterCoordinator.class);

    /** Default of {@link Builder#handOverTimeout(Duration)}: {@code outbox.instance.hand-over-timeout-seconds}. */
    public static final Duration DEFAULT_HAND_OVER_TIMEOUT = Duration.ofSeconds(10);

    private final String instanceId;
    private final InstanceStore instances;
    private final ClusterTimings timings;
    private final HeartbeatLease lease;
    private final PartitionLedger ledger;
    private final Rebalancer rebalancer;
    private final FailureLog failures;
    private final HandOverBudget handOver;
    private final ClusterSchedule schedule;
    private volatile boolean shuttingDown;
    private boolean closed;
    private @Nullable ScheduledExecutorService heartbeatThread;
    private @Nullable ScheduledExecutorService rebalanceThread;

    private ClusterCoordinator(Builder builder) {
        this.instances = Objects.requireNonNull(builder.instances, "ClusterCoordinator.builder(): instanceStore");
        PartitionStore partitions = Objects.requireNonNull(builder.partitions,
                "ClusterCoordinator.builder(): partitionStore");
        this.instanceId = Checks.requireText("instanceId", builder.instanceId, 255);
        this.timings = new ClusterTimings(builder.heartbeatInterval, builder.staleTimeout, builder.rebalanceInterval);
        this.lease = new HeartbeatLease(builder.heartbeats != null ? builder.heartbeats : instances, instanceId,
                builder.hostname, builder.port, builder.capabilities, builder.recordsCompleted, timings.lease(),
                timings.staleTimeout(), builder.nanoClock);
        this.ledger = new PartitionLedger(instanceId, builder.partitionListener);
        this.rebalancer = new Rebalancer(instanceId, instances, partitions, ledger, timings.staleTimeout(),
                builder.handling, builder.partitionsGained);
        this.schedule = new ClusterSchedule(timings, lease, builder.nanoClock,
                members -> safely("rebalance", () -> rebalance(members)));
        this.failures = new FailureLog(FailureLog.DEFAULT_INTERVAL, builder.nanoClock);
        this.handOver = new HandOverBudget(
                Checks.positive("outbox.instance.hand-over-timeout-seconds", builder.handOverTimeout),
                builder.nanoClock);
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
        handOver.restart();
        ledger.closing(false);
        lease.restart();
        log.info("Outbox instance {} joining the cluster: heartbeat every {}, stale after {}, rebalance every {}",
                instanceId, timings.heartbeatInterval(), timings.staleTimeout(), timings.rebalanceInterval());
        heartbeatThread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("outbox-heartbeat"));
        rebalanceThread = Executors.newSingleThreadScheduledExecutor(DaemonThreads.named("outbox-rebalance"));
        // Register and take a first share before returning, so processing can start at once.
        safely("heartbeat", this::heartbeat);
        schedule.start(heartbeatThread, rebalanceThread, () -> safely("heartbeat", this::heartbeat));
    }

    @Override
    public OwnedPartitions ownedPartitions() {
        return shuttingDown || !lease.holds() ? OwnedPartitions.none() : ledger.dispatchable();
    }

    @Override
    public void lost(Fence fence) {
        ledger.lost(fence);
    }

    /** One heartbeat, as the background thread does it; public for tests that drive the coordinator by hand. */
    public void heartbeat() {
        lease.heartbeat(ledger::forgetAll);
    }

    /** One rebalance, as the background thread does it; public for tests that drive the coordinator by hand. */
    public void rebalance() {
        rebalance(null);
    }

    private void rebalance(@Nullable List<InstanceState> members) {
        if (!shuttingDown && lease.isValid()) {
            rebalancer.rebalance(members);
        }
    }

    /**
     * Stops handing out partitions and marks this instance SHUTTING_DOWN, so no partition is assigned to it any more.
     * Call before stopping the processor; then {@link #close()}.
     */
    public void beginShutdown() {
        shuttingDown = true;
        ledger.closing(true);
        try {
            handOver.run("mark-shutting-down", () -> instances.markShuttingDown(instanceId));
        } catch (HandOverBudget.TimedOut e) {
            log.warn("Outbox instance {} could not mark itself SHUTTING_DOWN: the database did not answer within "
                    + "{} (outbox.instance.hand-over-timeout-seconds)", instanceId, handOver.timeout());
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
        ledger.closing(true);
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
            shutdownAndWait(rebalancer, handOver.remainingNanos());
        }
        int held = ledger.heldCount();
        AtomicInteger released = new AtomicInteger();
        boolean left = false;
        try {
            handOver.run("release", () -> this.rebalancer.releaseAll(released));
            // Heartbeats end before the row goes: one that found it gone would register this instance again.
            if (heartbeater != null) {
                shutdownAndWait(heartbeater, handOver.remainingNanos());
            }
            handOver.run("leave", () -> instances.remove(instanceId));
            left = true;
        } catch (HandOverBudget.TimedOut e) {
            log.warn("Outbox instance {} could not release {} partition(s): the database did not answer within {} "
                    + "(outbox.instance.hand-over-timeout-seconds); other instances take them over after the stale "
                    + "timeout ({})", instanceId, Math.max(0, held - released.get()), handOver.timeout(),
                    timings.staleTimeout());
        } catch (RuntimeException e) {
            log.warn("Outbox instance {} could not release {} partition(s); other instances take them over after "
                    + "the stale timeout ({}): {}", instanceId, Math.max(0, held - released.get()),
                    timings.staleTimeout(), e.toString());
        } finally {
            if (heartbeater != null) {
                shutdownAndWait(heartbeater, handOver.remainingNanos());
            }
            ledger.clear();
            ledger.notifyChanges(); // the hand-over loses every partition: the listener counts them
        }
        if (left) {
            log.info("Outbox instance {} left the cluster and released {} partition(s)", instanceId, released.get());
        } else {
            log.warn("Outbox instance {} stopped without leaving the cluster; it released {} partition(s)",
                    instanceId, released.get());
        }
    }

    /**
     * Whether this instance's last heartbeat is recent enough that it may still act on its partitions: false before the
     * first heartbeat, and once heartbeats have failed for longer than the stale timeout minus one heartbeat interval.
     */
    public boolean isInContact() {
        return lease.isValid();
    }

    /** Time since the last successful heartbeat, by the monotonic clock; empty before the first one. */
    public Optional<Duration> sinceLastHeartbeat() {
        return lease.sinceLastHeartbeat();
    }

    /** True from {@link #beginShutdown()} or {@link #close()} on. */
    public boolean isShuttingDown() {
        return shuttingDown;
    }

    private void safely(String what, Runnable step) {
        try {
            step.run();
        } catch (RuntimeException e) {
            if (failures.failed()) {
                log.warn("Outbox instance {}: {} failed (logged at most once a minute): {}", instanceId, what,
                        e.toString());
            }
            return;
        }
        failures.succeeded();
    }

    /** Stops a background thread, interrupting it once {@code nanos} have passed (a database call that hangs). */
    private static void shutdownAndWait(ScheduledExecutorService executor, long nanos) {
        executor.shutdown();
        try {
            if (!executor.awaitTermination(nanos, TimeUnit.NANOSECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }

    /** Assembles a {@link ClusterCoordinator}; instance store, partition store and instance id are required. */
    public static final class Builder {

        private @Nullable InstanceStore instances;
        private @Nullable InstanceStore heartbeats;
        private @Nullable PartitionStore partitions;
        private @Nullable String instanceId;
        private String hostname = "unknown";
        private int port;
        private @Nullable InstanceCapabilities capabilities;
        private @Nullable LongSupplier recordsCompleted;
        private Duration heartbeatInterval = ClusterTimings.DEFAULT_HEARTBEAT_INTERVAL;
        private Duration staleTimeout = ClusterTimings.DEFAULT_STALE_TIMEOUT;
        private Duration rebalanceInterval = ClusterTimings.DEFAULT_REBALANCE_INTERVAL;
        private IntPredicate handling = partition -> false;
        private Runnable partitionsGained = () -> { };
        private PartitionListener partitionListener = PartitionListener.NOOP;
        private LongSupplier nanoClock = System::nanoTime;
        private Duration handOverTimeout = DEFAULT_HAND_OVER_TIMEOUT;

        private Builder() {
        }

        /**
         * How long the database steps of a stop may take together: marking the instance SHUTTING_DOWN, releasing its
         * partitions, leaving the instance table ({@code outbox.instance.hand-over-timeout-seconds}, default 10 s).
         * What is not done in time is logged; other instances take the partitions over after the stale timeout.
         */
        public Builder handOverTimeout(Duration handOverTimeout) {
            this.handOverTimeout = Checks.positive("outbox.instance.hand-over-timeout-seconds", handOverTimeout);
            return this;
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

        /**
         * What this instance can process, written into its row of the instance table so that monitoring can tell which
         * records no live instance takes. Default: not written.
         */
        public Builder capabilities(InstanceCapabilities capabilities) {
            this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
            return this;
        }

        /** This instance's count of completed records, published with each heartbeat; an {@code OutboxNode} sets it. */
        public Builder recordsCompleted(LongSupplier recordsCompleted) {
            this.recordsCompleted = Objects.requireNonNull(recordsCompleted, "recordsCompleted");
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

        /** All three intervals at once. */
        public Builder timings(ClusterTimings timings) {
            return heartbeatInterval(timings.heartbeatInterval()).staleTimeout(timings.staleTimeout())
                    .rebalanceInterval(timings.rebalanceInterval());
        }

        /**
         * Whether a record of the partition is in hand; a partition to give up is released once it is not. An
         * {@code OutboxNode} wires it to its processor.
         */
        public Builder handling(IntPredicate handling) {
            this.handling = Objects.requireNonNull(handling, "handling");
            return this;
        }

        /** Told of every change of the partitions this instance processes, e.g. to count rebalances. */
        public Builder partitionListener(PartitionListener partitionListener) {
            this.partitionListener = Objects.requireNonNull(partitionListener, "partitionListener");
            return this;
        }

        /** Called after a rebalance claimed partitions; an {@code OutboxNode} wakes its processor with it. */
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
