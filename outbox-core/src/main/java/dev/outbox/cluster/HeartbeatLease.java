package dev.outbox.cluster;

import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStore;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's membership and its lease on its partitions. It registers in the instance table and heartbeats
 * there; liveness is judged by the database's clock only. After each successful heartbeat it may act on its
 * partitions for the {@linkplain ClusterTimings#lease() lease}, by its own monotonic clock: others may claim them only
 * once its last heartbeat is a whole stale timeout old, so the lease always runs out first.
 */
final class HeartbeatLease {

    private static final Logger log = LoggerFactory.getLogger(HeartbeatLease.class);

    private final InstanceStore heartbeats;
    private final String instanceId;
    private final String hostname;
    private final int port;
    private final @Nullable InstanceCapabilities capabilities;
    /** The records this instance completed since it started, published with each heartbeat; null: none published. */
    private final @Nullable LongSupplier recordsCompleted;
    private final LongSupplier nanoClock;
    private final long leaseNanos;
    private final Duration staleTimeout;
    /** The live instances the last heartbeat read, with when it was sent; null before one read them. */
    private volatile @Nullable Members members;
    private volatile long lastHeartbeatNanos;
    private volatile boolean heartbeatSucceeded;
    private volatile boolean lossLogged;

    HeartbeatLease(InstanceStore heartbeats, String instanceId, String hostname, int port,
            @Nullable InstanceCapabilities capabilities, @Nullable LongSupplier recordsCompleted, Duration lease,
            Duration staleTimeout, LongSupplier nanoClock) {
        this.heartbeats = heartbeats;
        this.instanceId = instanceId;
        this.hostname = hostname;
        this.port = port;
        this.capabilities = capabilities;
        this.recordsCompleted = recordsCompleted;
        this.nanoClock = nanoClock;
        this.leaseNanos = lease.toNanos();
        this.staleTimeout = staleTimeout;
    }

    /**
     * Registers or heartbeats once, and renews the lease; twice when the first call outlasted the lease.
     *
     * @param forgetHoldings run before the lease is renewed when what this instance held may have been taken
     *     meanwhile (the lease ran out, or its row was gone): it must forget its partitions and claim afresh
     */
    void heartbeat(Runnable forgetHoldings) {
        beat(forgetHoldings);
        if (!isValid()) {
            // That call took longer than the lease (sent as the database went away, answered once it was back: the
            // pool waited for a connection), and the lease counts from when it was sent, so it renewed nothing. One
            // more now that the database answers, which forgets the holdings first, rather than one interval later.
            beat(forgetHoldings);
        }
    }

    private void beat(Runnable forgetHoldings) {
        long sent = nanoClock.getAsLong();
        boolean expired = heartbeatSucceeded && !isValid();
        boolean present;
        if (heartbeatSucceeded) {
            Optional<List<InstanceState>> live = recordsCompleted == null
                    ? heartbeats.heartbeatAndFindLive(instanceId, staleTimeout)
                    : heartbeats.heartbeatAndFindLive(instanceId, recordsCompleted.getAsLong(), staleTimeout);
            present = live.isPresent();
            if (present) {
                members = new Members(live.get(), sent);
            } else {
                log.warn("Outbox instance {} was missing from the instance table (removed as stale); registering "
                        + "again", instanceId);
                register();
            }
        } else {
            // First contact, or none yet: (re-)register, which a restart with a stable id needs anyway.
            register();
            present = false;
        }
        if (expired || !present) {
            forgetHoldings.run();
        }
        lastHeartbeatNanos = sent;
        heartbeatSucceeded = true;
        // Not before the lease holds again: a call that outlasted it renewed nothing.
        if (lossLogged && isValid()) {
            lossLogged = false;
            log.info("Outbox instance {} heartbeats again", instanceId);
        }
    }

    private void register() {
        if (capabilities == null) {
            heartbeats.register(instanceId, hostname, port);
        } else {
            heartbeats.register(instanceId, hostname, port, capabilities);
        }
    }

    /**
     * Whether the last heartbeat is recent enough that this instance may act on its partitions: false before the first
     * heartbeat, and once heartbeats have failed for longer than the lease. Logs the loss once.
     */
    boolean holds() {
        boolean valid = isValid();
        if (!valid && heartbeatSucceeded && !lossLogged) {
            lossLogged = true;
            log.warn("Outbox instance {} has not heartbeated for {} or more; it stops processing until it has",
                    instanceId, Duration.ofNanos(leaseNanos));
        }
        return valid;
    }

    boolean isValid() {
        return heartbeatSucceeded && nanoClock.getAsLong() - lastHeartbeatNanos < leaseNanos;
    }

    /** Time since the last successful heartbeat, by the monotonic clock; empty before the first one. */
    Optional<Duration> sinceLastHeartbeat() {
        return heartbeatSucceeded ? Optional.of(Duration.ofNanos(nanoClock.getAsLong() - lastHeartbeatNanos))
                : Optional.empty();
    }

    /**
     * The live instances the last heartbeat read, when it was sent less than {@code maxAge} ago by the monotonic clock;
     * empty otherwise (none yet, or heartbeats fail), and the caller reads them itself.
     */
    Optional<List<InstanceState>> recentMembers(Duration maxAge) {
        Members last = members;
        if (last == null || nanoClock.getAsLong() - last.sentNanos() >= maxAge.toNanos()) {
            return Optional.empty();
        }
        return Optional.of(last.live());
    }

    /** Forgets the heartbeats: a restarted coordinator registers again. */
    void restart() {
        heartbeatSucceeded = false;
        members = null;
    }

    private record Members(List<InstanceState> live, long sentNanos) {
    }
}
