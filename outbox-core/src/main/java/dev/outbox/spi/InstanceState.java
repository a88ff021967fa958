package dev.outbox.spi;

import dev.outbox.internal.Checks;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

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
 * @param capabilities what it can process, or null when it did not say (a version from before capabilities, or a
 *     store that keeps none)
 * @param recordsCompleted how many records the instance had completed since it started, as its last heartbeat
 *     published; null when it did not say (a version from before this count, or a store that keeps none)
 */
public record InstanceState(String instanceId, String hostname, int port, InstanceStatus status, Instant startedAt,
        Instant lastHeartbeat, Duration heartbeatAge, @Nullable InstanceCapabilities capabilities,
        @Nullable Long recordsCompleted) {

    public InstanceState {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(hostname, "hostname");
        Objects.requireNonNull(status, "status");
        Objects.requireNonNull(startedAt, "startedAt");
        Objects.requireNonNull(lastHeartbeat, "lastHeartbeat");
        Objects.requireNonNull(heartbeatAge, "heartbeatAge");
        if (recordsCompleted != null) {
            Checks.atLeast("recordsCompleted", recordsCompleted, 0);
        }
    }

    /** A row without a count of completed records. */
    public InstanceState(String instanceId, String hostname, int port, InstanceStatus status, Instant startedAt,
            Instant lastHeartbeat, Duration heartbeatAge, @Nullable InstanceCapabilities capabilities) {
        this(instanceId, hostname, port, status, startedAt, lastHeartbeat, heartbeatAge, capabilities, null);
    }

    /** A row without capabilities nor a count of completed records. */
    public InstanceState(String instanceId, String hostname, int port, InstanceStatus status, Instant startedAt,
            Instant lastHeartbeat, Duration heartbeatAge) {
        this(instanceId, hostname, port, status, startedAt, lastHeartbeat, heartbeatAge, null, null);
    }

    /**
     * Whether it takes records addressed to {@code handlerId} (null: to no handler). An instance that did not say what
     * it can process is taken to take everything, as every instance did before instances said.
     */
    public boolean takes(@Nullable String handlerId) {
        return capabilities == null || capabilities.takes(handlerId);
    }
}
