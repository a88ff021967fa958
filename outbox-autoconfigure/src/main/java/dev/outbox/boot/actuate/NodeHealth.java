package dev.outbox.boot.actuate;

import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxSnapshot;
import java.sql.SQLNonTransientConnectionException;
import java.sql.SQLRecoverableException;
import java.sql.SQLTransientException;
import java.time.Duration;
import org.jspecify.annotations.Nullable;
import org.springframework.dao.DataAccessResourceFailureException;
import org.springframework.dao.RecoverableDataAccessException;
import org.springframework.dao.TransientDataAccessException;

/**
 * This node's health in a word, with why: the one judgement that {@link OutboxHealthIndicator} reports as
 * {@code outbox} health and {@link OutboxEndpoint} puts first in its report. Kept free of Spring Boot's health classes,
 * which an application with the actuator's endpoints may lack.
 *
 * <p>DOWN once this instance has lost its heartbeat lease, when reading the outbox tables failed for a reason of
 * their own (schema or table missing), or when they have not answered for the stale-instance timeout; OUT_OF_SERVICE
 * while it shuts down; UNKNOWN before its first heartbeat or snapshot; UP otherwise. A read that failed on its
 * connection (refused, cut, killed by the server) counts as an unanswered one: one lost connection, which the pool
 * replaces at once, would otherwise show DOWN until the next refresh while the node goes on processing.
 *
 * @param status a status code of Spring Boot's health: {@code UP}, {@code DOWN}, {@code OUT_OF_SERVICE} or
 *     {@code UNKNOWN}
 * @param reason why it is not UP; null when UP
 * @param error what the last read of the outbox tables threw, when it bears on the status
 */
record NodeHealth(String status, @Nullable String reason, @Nullable String error) {

    static final String UP = "UP";
    static final String DOWN = "DOWN";
    static final String OUT_OF_SERVICE = "OUT_OF_SERVICE";
    static final String UNKNOWN = "UNKNOWN";

    /**
     * @param reading the monitor's last snapshot, as waited for by the caller
     * @param staleTimeout how long the outbox tables may not answer before the node is DOWN
     */
    static NodeHealth of(LatestReading.Reading<OutboxSnapshot> reading, @Nullable ClusterCoordinator coordinator,
            Duration staleTimeout) {
        Duration unanswered = reading.unansweredFor();
        RuntimeException failure = reading.failure();
        String error = failure == null ? null : failure.toString();
        if (coordinator != null && coordinator.isShuttingDown()) {
            return new NodeHealth(OUT_OF_SERVICE, "this instance is shutting down", null);
        }
        if (coordinator != null && coordinator.sinceLastHeartbeat().isPresent() && !coordinator.isInContact()) {
            return new NodeHealth(DOWN, "heartbeat lease lost: no heartbeat for "
                    + seconds(coordinator.sinceLastHeartbeat().get()) + "s; this instance processes no partition "
                    + "until it heartbeats again", null);
        }
        if (unanswered.compareTo(staleTimeout) >= 0) {
            return new NodeHealth(DOWN, "the outbox tables have not answered for " + seconds(unanswered)
                    + "s (outbox.instance.stale-instance-timeout-seconds: " + staleTimeout.toSeconds() + ")", error);
        }
        if (failure != null && !isConnectionFailure(failure)) {
            return new NodeHealth(DOWN, "reading the outbox tables failed", error);
        }
        if (coordinator != null && coordinator.sinceLastHeartbeat().isEmpty()) {
            return new NodeHealth(UNKNOWN, "no heartbeat yet", null);
        }
        if (reading.value() == null) {
            return new NodeHealth(UNKNOWN, "no snapshot of the outbox tables yet", null);
        }
        return new NodeHealth(UP, null, error);
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
