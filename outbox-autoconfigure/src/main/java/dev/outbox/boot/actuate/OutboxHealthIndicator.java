package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;

/**
 * {@code outbox} health, from this node's own state and the monitor's last snapshot, so that it answers within
 * {@link #WAIT} whatever the database does: DOWN once this instance has lost its heartbeat lease, when reading the
 * outbox tables failed for a reason of their own (schema or table missing), or when they have not answered for the
 * stale-instance timeout; OUT_OF_SERVICE while it shuts down; UNKNOWN before its first heartbeat. Details: owned
 * partitions (the node's own count) and the backlog from the last snapshot, with its age.
 *
 * <p>A read that failed on its connection (refused, cut, killed by the server) counts as an unanswered one: one lost
 * connection, which the pool replaces at once, would otherwise show DOWN until the next refresh while the node goes
 * on processing.
 */
public class OutboxHealthIndicator extends AbstractHealthIndicator {

    /** How long a health call waits for a snapshot refresh in flight before answering with the last one. */
    static final Duration WAIT = Duration.ofMillis(500);

    private final OutboxMonitor monitor;
    private final @Nullable ClusterCoordinator coordinator;

    public OutboxHealthIndicator(OutboxMonitor monitor, @Nullable ClusterCoordinator coordinator) {
        super("Outbox health check failed");
        this.monitor = monitor;
        this.coordinator = coordinator;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        LatestReading.Reading<OutboxSnapshot> reading = monitor.latest(WAIT);
        OutboxSnapshot snapshot = reading.value();
        if (coordinator != null) {
            builder.withDetail("ownedPartitions", coordinator.ownedPartitions().size());
        } else if (snapshot != null) {
            builder.withDetail("ownedPartitions", snapshot.assignedPartitionCount());
        }
        if (snapshot != null) {
            builder.withDetail("pending", snapshot.recordCount(OutboxRecordStatus.NEW))
                    .withDetail("failed", snapshot.recordCount(OutboxRecordStatus.FAILED))
                    .withDetail("oldestPendingAgeSeconds", seconds(snapshot.oldestPendingAge()));
            if (!snapshot.unknownStatusCounts().isEmpty()) {
                builder.withDetail("unknownStatuses", snapshot.unknownStatusCounts());
            }
        }
        if (reading.age() != null) {
            builder.withDetail("snapshotAgeSeconds", seconds(reading.age()));
        }
        if (reading.stale()) {
            builder.withDetail("stale", true);
        }
        if (coordinator != null) {
            coordinator.sinceLastHeartbeat().ifPresent(age -> builder.withDetail("lastHeartbeatSecondsAgo",
                    seconds(age)));
        }
        Duration unanswered = reading.unansweredFor();
        Duration limit = monitor.staleTimeout();
        RuntimeException failure = reading.failure();
        if (coordinator != null && coordinator.isShuttingDown()) {
            builder.outOfService();
        } else if (coordinator != null && coordinator.sinceLastHeartbeat().isPresent()
                && !coordinator.isInContact()) {
            builder.down().withDetail("reason", "heartbeat lease lost: no heartbeat for "
                    + seconds(coordinator.sinceLastHeartbeat().get()) + "s; this instance processes no partition "
                    + "until it heartbeats again");
        } else if (unanswered.compareTo(limit) >= 0) {
            builder.down().withDetail("reason", "the outbox tables have not answered for " + seconds(unanswered)
                    + "s (outbox.instance.stale-instance-timeout-seconds: " + limit.toSeconds() + ")");
            if (failure != null) {
                builder.withDetail("error", failure.toString());
            }
        } else if (failure != null && !isConnectionFailure(failure)) {
            builder.down().withDetail("reason", "reading the outbox tables failed")
                    .withDetail("error", failure.toString());
        } else if (coordinator != null && coordinator.sinceLastHeartbeat().isEmpty()) {
            builder.unknown().withDetail("reason", "no heartbeat yet");
        } else if (snapshot == null) {
            builder.unknown().withDetail("reason", "no snapshot of the outbox tables yet");
        } else {
            builder.up();
            if (failure != null) {
                builder.withDetail("error", failure.toString());
            }
        }
    }

    /** Whether the failure is the connection's, not the tables': what a pool's next connection may not have. */
    static boolean isConnectionFailure(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof DataAccessResourceFailureException || cause instanceof TransientDataAccessException
                    || cause instanceof RecoverableDataAccessException || cause instanceof SQLTransientException
                    || cause instanceof SQLRecoverableException || cause instanceof SQLNonTransientConnectionException) {
                return true;
            }
            if (cause.getCause() == cause) {
                break;
            }
        }
        return false;
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
