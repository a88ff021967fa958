package dev.outbox.boot.actuate;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;

/**
 * {@code outbox} health: DOWN when the outbox tables cannot be read (schema missing, database down) or when this
 * instance has lost its heartbeat lease; OUT_OF_SERVICE while it shuts down; UNKNOWN before its first heartbeat.
 * Details: owned partitions and the backlog, from the monitor's cached snapshot.
 */
public class OutboxHealthIndicator extends AbstractHealthIndicator {

    private final OutboxMonitor monitor;
    private final @Nullable ClusterCoordinator coordinator;

    public OutboxHealthIndicator(OutboxMonitor monitor, @Nullable ClusterCoordinator coordinator) {
        super("Outbox health check failed");
        this.monitor = monitor;
        this.coordinator = coordinator;
    }

    @Override
    protected void doHealthCheck(Health.Builder builder) {
        OutboxSnapshot snapshot = monitor.snapshot(); // throws, and so reports DOWN, when the tables cannot be read
        builder.withDetail("ownedPartitions", snapshot.assignedPartitionCount())
                .withDetail("pending", snapshot.recordCount(OutboxRecordStatus.NEW))
                .withDetail("failed", snapshot.recordCount(OutboxRecordStatus.FAILED))
                .withDetail("oldestPendingAgeSeconds", snapshot.oldestPendingAge().toMillis() / 1000.0);
        if (coordinator == null) {
            builder.up();
            return;
        }
        coordinator.sinceLastHeartbeat().ifPresent(age -> builder.withDetail("lastHeartbeatSecondsAgo",
                age.toMillis() / 1000.0));
        if (coordinator.isShuttingDown()) {
            builder.outOfService();
        } else if (coordinator.sinceLastHeartbeat().isEmpty()) {
            builder.unknown().withDetail("reason", "no heartbeat yet");
        } else if (!coordinator.isInContact()) {
            builder.down().withDetail("reason", "heartbeats fail: this instance may no longer own its partitions");
        } else {
            builder.up();
        }
    }
}
