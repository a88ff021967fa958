package dev.outbox.cluster;

import dev.outbox.internal.Checks;
import java.time.Duration;

/**
 * How often an instance heartbeats and rebalances, and when a silent one is dead. Immutable; checked when made, each
 * value naming its property.
 *
 * @param heartbeatInterval {@code outbox.instance.heartbeat-interval-seconds}: how often an instance heartbeats
 * @param staleTimeout {@code outbox.instance.stale-instance-timeout-seconds}: after how long without a heartbeat, by
 *     the database's clock, an instance is dead; greater than the heartbeat interval
 * @param rebalanceInterval {@code outbox.instance.new-instance-detection-interval-seconds}: how often an instance
 *     reads the cluster and moves its partitions toward the target assignment
 */
public record ClusterTimings(Duration heartbeatInterval, Duration staleTimeout, Duration rebalanceInterval) {

    public static final Duration DEFAULT_HEARTBEAT_INTERVAL = Duration.ofSeconds(2);
    public static final Duration DEFAULT_STALE_TIMEOUT = Duration.ofSeconds(10);
    public static final Duration DEFAULT_REBALANCE_INTERVAL = Duration.ofSeconds(2);

    public ClusterTimings {
        Checks.positive("outbox.instance.heartbeat-interval-seconds", heartbeatInterval);
        Checks.positive("outbox.instance.stale-instance-timeout-seconds", staleTimeout);
        Checks.positive("outbox.instance.new-instance-detection-interval-seconds", rebalanceInterval);
        if (staleTimeout.compareTo(heartbeatInterval) <= 0) {
            throw new IllegalArgumentException("outbox.instance.stale-instance-timeout-seconds ("
                    + seconds(staleTimeout) + ") must be greater than outbox.instance.heartbeat-interval-seconds ("
                    + seconds(heartbeatInterval) + ")");
        }
    }

    /** As the properties give it: whole seconds as a number, anything finer as a duration. */
    private static String seconds(Duration duration) {
        return duration.getNano() == 0 ? Long.toString(duration.getSeconds()) : duration.toString();
    }

    /** The defaults: heartbeat every 2 s, dead after 10 s, rebalance every 2 s. */
    public static ClusterTimings defaults() {
        return new ClusterTimings(DEFAULT_HEARTBEAT_INTERVAL, DEFAULT_STALE_TIMEOUT, DEFAULT_REBALANCE_INTERVAL);
    }

    /**
     * How long after its last successful heartbeat an instance may still act on its partitions: the stale timeout
     * minus one heartbeat interval, so that it stops before any other instance may claim them.
     */
    public Duration lease() {
        return staleTimeout.minus(heartbeatInterval);
    }
}
