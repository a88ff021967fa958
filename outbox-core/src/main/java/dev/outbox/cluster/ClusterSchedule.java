package dev.outbox.cluster;

import dev.outbox.spi.InstanceState;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * When the coordinator's background threads heartbeat and rebalance. With a rebalance interval no shorter than the
 * heartbeat interval (the default: both 2 s), rounds follow heartbeats: a round takes the live instances the heartbeat
 * has just read in its transaction ({@link HeartbeatLease#recentMembers}), so that an idle instance commits once per
 * interval for both rather than twice, and sees a join or a death as soon as a round of its own would. A round is
 * queued after every heartbeat that ends at least the rebalance interval less half a heartbeat interval after the
 * last round started, so rounds come never less often than asked; after a failed heartbeat the round reads the live
 * instances itself. With a shorter rebalance interval, rounds keep a schedule of their own and read them.
 */
final class ClusterSchedule {

    private final ClusterTimings timings;
    private final HeartbeatLease lease;
    private final LongSupplier nanoClock;
    private final Consumer<@Nullable List<InstanceState>> round;
    /** A round is queued or running; no other is queued meanwhile. */
    private final AtomicBoolean queued = new AtomicBoolean();
    private volatile long lastRoundNanos;

    /** @param round one round, given the live instances, or null to read them itself; never throws */
    ClusterSchedule(ClusterTimings timings, HeartbeatLease lease, LongSupplier nanoClock,
            Consumer<@Nullable List<InstanceState>> round) {
        this.timings = timings;
        this.lease = lease;
        this.nanoClock = nanoClock;
        this.round = round;
        this.lastRoundNanos = nanoClock.getAsLong();
    }

    /**
     * The first round, now, then heartbeats ({@code heartbeat} never throws) and rounds in the background until the
     * executors are shut down.
     */
    void start(ScheduledExecutorService heartbeats, ScheduledExecutorService rounds, Runnable heartbeat) {
        lastRoundNanos = nanoClock.getAsLong();
        round.accept(null);
        long heartbeatMillis = timings.heartbeatInterval().toMillis();
        long rebalanceMillis = timings.rebalanceInterval().toMillis();
        boolean followHeartbeats = timings.rebalanceInterval().compareTo(timings.heartbeatInterval()) >= 0;
        heartbeats.scheduleWithFixedDelay(() -> {
            heartbeat.run();
            if (followHeartbeats) {
                heartbeatDone(rounds);
            }
        }, heartbeatMillis, heartbeatMillis, TimeUnit.MILLISECONDS);
        if (!followHeartbeats) {
            rounds.scheduleWithFixedDelay(() -> round.accept(null), rebalanceMillis, rebalanceMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    /** Called after each heartbeat, successful or not: queues a round on {@code rounds} when one is due. */
    void heartbeatDone(Executor rounds) {
        long dueAfter = timings.rebalanceInterval().minus(timings.heartbeatInterval().dividedBy(2)).toNanos();
        if (nanoClock.getAsLong() - lastRoundNanos < dueAfter || !queued.compareAndSet(false, true)) {
            return;
        }
        List<InstanceState> members = lease.recentMembers(timings.heartbeatInterval()).orElse(null);
        try {
            rounds.execute(() -> {
                try {
                    lastRoundNanos = nanoClock.getAsLong();
                    round.accept(members);
                } finally {
                    queued.set(false);
                }
            });
        } catch (RejectedExecutionException closing) {
            queued.set(false);
        }
    }
}
