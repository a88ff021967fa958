package dev.outbox.spi;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * One row of the instance table as read.
 *
 * @param instanceId unique id of the instance
 * @param hostname where it runs, for operators
 * @param port its server port, or 0
 * @param status ACTIVE or SHUTTING_DOWN
 * @param startedAt when it registered (database clock)
 * @param lastHeartbeat its last heartbeat (database clock)
 * @param heartbeatAge database time elapsed since that heartbeat when the row was read
 */
public record InstanceState(String instanceId, String hostname, int port, InstanceStatus status, Instant startedAt,
        Instant lastHeartbeat, Duration heartbeatAge) {

    public InstanceState {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(lastHeartbeat, "lastHeartbeat");
        Objects.requireNonNull(heartbeatAge, "heartbeatAge");
    }
}
