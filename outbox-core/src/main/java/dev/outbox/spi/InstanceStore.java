package dev.outbox.spi;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The instance table: membership and heartbeats. Every time comparison uses the <em>database's</em> clock, so clock
 * skew between nodes cannot make a live node look dead. Each method is one short statement of its own, but for
 * {@link #heartbeatAndFindLive}, two in one transaction.
 */
public interface InstanceStore {

    /**
     * Inserts this instance as ACTIVE with started_at and last_heartbeat set to the database's now, or, when a row
     * with this id exists (a restart with a stable id), resets that row the same way.
     */
    void register(String instanceId, String hostname, int port);

    /**
     * {@link #register(String, String, int)}, and writes what the instance can process into its row, replacing what a
     * previous registration under the same id wrote. Stores that keep no capabilities register only.
     */
    default void register(String instanceId, String hostname, int port, InstanceCapabilities capabilities) {
        register(instanceId, hostname, port);
    }

    /** Sets last_heartbeat to the database's now; false when the row is gone (it was removed as stale). */
    boolean heartbeat(String instanceId);

    /**
     * {@link #heartbeat(String)}, and publishes in the same write how many records the instance has completed since it
     * started ({@link InstanceState#recordsCompleted()}), which the console sums into the drain rate. Stores that keep
     * no count heartbeat only.
     *
     * @param recordsCompleted at least 0
     */
    default boolean heartbeat(String instanceId, long recordsCompleted) {
        return heartbeat(instanceId);
    }

    /**
     * {@link #heartbeat} then, when the row was there, {@link #findLive}: what an instance does every heartbeat
     * interval, in one transaction where the store has them, so that an idle instance pays one commit for both rather
     * than two. The default calls the two methods one after the other.
     *
     * @return the live instances, this one included; empty when the row is gone (nothing is read then)
     */
    default Optional<List<InstanceState>> heartbeatAndFindLive(String instanceId, Duration staleTimeout) {
        return heartbeat(instanceId) ? Optional.of(findLive(staleTimeout)) : Optional.empty();
    }

    /**
     * {@link #heartbeatAndFindLive(String, Duration)} publishing the instance's count of completed records, as
     * {@link #heartbeat(String, long)} does. Stores that keep no count run
     * {@link #heartbeatAndFindLive(String, Duration)}.
     */
    default Optional<List<InstanceState>> heartbeatAndFindLive(String instanceId, long recordsCompleted,
            Duration staleTimeout) {
        return heartbeatAndFindLive(instanceId, staleTimeout);
    }

    /** Marks the instance SHUTTING_DOWN; it keeps heartbeating until it is removed. */
    void markShuttingDown(String instanceId);

    /** Deletes the instance's row. */
    void remove(String instanceId);

    /** Every instance whose last heartbeat is at most {@code staleTimeout} old by the database's clock. */
    List<InstanceState> findLive(Duration staleTimeout);

    /** Deletes the instances whose last heartbeat is older than {@code staleTimeout}; returns how many. */
    int removeStale(Duration staleTimeout);
}
