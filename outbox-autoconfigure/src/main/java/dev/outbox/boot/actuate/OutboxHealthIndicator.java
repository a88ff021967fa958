package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code outbox} health, from this node's own state and the monitor's last snapshot, so that it answers within
 * {@link #WAIT} whatever the database does; the status and its reason are {@link NodeHealth}'s judgement, which
 * {@code /actuator/outbox} shows too. Details: owned partitions (the node's own count) and the backlog from the last
 * snapshot, with its age.
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
        NodeHealth judged = NodeHealth.of(reading, coordinator, monitor.staleTimeout());
        builder.status(judged.status());
        if (judged.reason() != null) {
            builder.withDetail("reason", judged.reason());
        }
        if (judged.error() != null) {
            builder.withDetail("error", judged.error());
        }
    }

    private static double seconds(Duration duration) {
        return duration.toMillis() / 1000.0;
    }
}
