package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.MutableClock;
import dev.outbox.testkit.LogLines;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The lease on a monotonic clock the test sets. The instance table is the in-memory one, watched: every call to it and
 * every run of {@code forgetHoldings} goes into one log, so their order shows.
 */
class HeartbeatLeaseTest {

    private static final Duration LEASE = Duration.ofSeconds(8);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final InMemoryClusterStore table = new InMemoryClusterStore(
            new MutableClock(Instant.parse("2026-01-01T00:00:00Z")));
    private final List<String> log = new ArrayList<>();
    private final WatchedStore store = new WatchedStore();
    private final HeartbeatLease lease = new HeartbeatLease(store, "node-1", "host-1", 8080, null, null, LEASE,
            Duration.ofSeconds(10), nanos::get);

    /** Passes every call to the in-memory table and logs it; {@link #duringHeartbeat} runs inside heartbeat(). */
    private final class WatchedStore extends ForwardingInstanceStore {
        Runnable duringHeartbeat = () -> { };
        RuntimeException failure;
        int findLiveCalls;

        WatchedStore() {
            super(table);
        }

        @Override
        public void register(String instanceId, String hostname, int port) {
            log.add("register");
            super.register(instanceId, hostname, port);
        }

        @Override
        public boolean heartbeat(String instanceId) {
            log.add("heartbeat");
            if (failure != null) {
                throw failure;
            }
            duringHeartbeat.run();
            return super.heartbeat(instanceId);
        }

        @Override
        public List<InstanceState> findLive(Duration staleTimeout) {
            findLiveCalls++;
            return super.findLive(staleTimeout);
        }
    }

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    /** Logs the run, with whether the lease was valid at that moment. */
    private void forget() {
        log.add("forget (valid=" + lease.isValid() + ")");
    }

    @Test
    void invalidBeforeTheFirstHeartbeat() {
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.holds()).isFalse();
        assertThat(lease.sinceLastHeartbeat()).isEmpty();
    }

    @Test
    void theFirstHeartbeatRegistersForgetsWhatWasHeldAndGrantsTheLease() {
        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("register", "forget (valid=false)");
        assertThat(table.findLive(Duration.ofSeconds(10))).singleElement().satisfies(row -> {
            assertThat(row.instanceId()).isEqualTo("node-1");
            assertThat(row.hostname()).isEqualTo("host-1");
            assertThat(row.port()).isEqualTo(8080);
            assertThat(row.status()).isEqualTo(InstanceStatus.ACTIVE);
        });
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.holds()).isTrue();
        assertThat(lease.sinceLastHeartbeat()).contains(Duration.ZERO);
    }

    @Test
    void aHeartbeatReadsTheLiveInstancesAndOffersThemUntilTheyAreTooOld() {
        lease.heartbeat(this::forget);
        assertThat(lease.recentMembers(Duration.ofSeconds(3))).as("registering reads no members").isEmpty();
        log.clear();

        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("heartbeat");
        assertThat(store.findLiveCalls).as("the live instances, read with the heartbeat").isEqualTo(1);
        assertThat(lease.recentMembers(Duration.ofSeconds(3))).hasValueSatisfying(live ->
                assertThat(live).extracting(InstanceState::instanceId).containsExactly("node-1"));
        advance(Duration.ofSeconds(3).minusNanos(1));
        assertThat(lease.recentMembers(Duration.ofSeconds(3))).isPresent();
        advance(Duration.ofNanos(1));
        assertThat(lease.recentMembers(Duration.ofSeconds(3))).as("counted from when the heartbeat was sent").isEmpty();
    }

    @Test
    void aHeartbeatThatFindsItsRowGoneReadsNoMembers() {
        lease.heartbeat(this::forget);
        table.remove("node-1");
        log.clear();

        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("heartbeat", "register", "forget (valid=true)");
        assertThat(store.findLiveCalls).isZero();
        assertThat(lease.recentMembers(Duration.ofSeconds(3))).isEmpty();
    }

    @Test
    void validWithinTheLeaseAndExpiredByTheMonotonicClockAtItsEnd() {
        lease.heartbeat(this::forget);

        advance(LEASE.minusNanos(1));
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.holds()).isTrue();
        assertThat(lease.sinceLastHeartbeat()).contains(LEASE.minusNanos(1));

        advance(Duration.ofNanos(1));
        assertThat(lease.isValid()).isFalse();
        assertThat(lease.holds()).isFalse();
        assertThat(lease.sinceLastHeartbeat()).contains(LEASE);
    }

    @Test
    void aHeartbeatWithinTheLeaseRenewsItWithoutForgettingAnything() {
        lease.heartbeat(this::forget);
        log.clear();
        advance(LEASE.minusSeconds(1));

        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("heartbeat");
        advance(LEASE.minusNanos(1));
        assertThat(lease.isValid()).as("counted from the renewal").isTrue();
    }

    @Test
    void theLeaseCountsFromWhenTheHeartbeatWasSentNotFromItsAnswer() {
        // A slow round trip must not stretch the lease: others count from when the database stamped the row.
        lease.heartbeat(this::forget);
        store.duringHeartbeat = () -> advance(Duration.ofSeconds(3));

        lease.heartbeat(this::forget);

        assertThat(lease.sinceLastHeartbeat()).contains(Duration.ofSeconds(3));
        advance(LEASE.minusSeconds(3));
        assertThat(lease.isValid()).isFalse();
    }

    @Test
    void aHeartbeatAnsweredOnlyAfterTheLeaseRanOutRenewsNothingSoAnotherFollowsAtOnce() {
        // Issue 29: sent as the database went away, answered after the outage (the pool waited for a connection).
        // Counted from when it was sent, it renewed nothing; it used to say "heartbeats again" all the same, the
        // processor logged the loss once more, and the lease came back only with the next heartbeat, an interval later.
        lease.heartbeat(this::forget);
        assertThat(lease.holds()).isTrue();
        advance(Duration.ofSeconds(1));
        store.duringHeartbeat = () -> {
            store.duringHeartbeat = () -> { };
            advance(LEASE.plusSeconds(2));
            assertThat(lease.holds()).as("lost during the outage").isFalse();
        };
        log.clear();

        try (LogLines lines = LogLines.of(HeartbeatLease.class)) {
            lease.heartbeat(this::forget);

            assertThat(log).containsExactly("heartbeat", "heartbeat", "forget (valid=false)");
            assertThat(lease.isValid()).isTrue();
            assertThat(lease.sinceLastHeartbeat()).contains(Duration.ZERO);
            assertThat(lines.lines()).containsExactly("WARN Outbox instance node-1 has not heartbeated for PT8S or "
                    + "more; it stops processing until it has", "INFO Outbox instance node-1 heartbeats again");
        }
    }

    @Test
    void aHeartbeatAfterExpiryForgetsTheHoldingsBeforeRenewing() {
        lease.heartbeat(this::forget);
        log.clear();
        advance(LEASE.plusSeconds(5));

        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("heartbeat", "forget (valid=false)");
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.sinceLastHeartbeat()).contains(Duration.ZERO);
    }

    @Test
    void aMissingRowIsRegisteredAgainAndTheHoldingsForgotten() {
        lease.heartbeat(this::forget);
        log.clear();
        table.remove("node-1"); // removed as stale by another instance
        advance(Duration.ofSeconds(1));

        lease.heartbeat(this::forget);

        assertThat(log).containsExactly("heartbeat", "register", "forget (valid=true)");
        assertThat(table.findLive(Duration.ofSeconds(10))).extracting(InstanceState::instanceId)
                .containsExactly("node-1");
        assertThat(lease.isValid()).isTrue();
        assertThat(lease.sinceLastHeartbeat()).contains(Duration.ZERO);
    }

    @Test
    void aFailedHeartbeatNeitherRenewsNorForgets() {
        lease.heartbeat(this::forget);
        log.clear();
        advance(Duration.ofSeconds(5));
        store.failure = new IllegalStateException("database down");

        assertThatThrownBy(() -> lease.heartbeat(this::forget)).isSameAs(store.failure);

        assertThat(log).containsExactly("heartbeat");
        assertThat(lease.sinceLastHeartbeat()).contains(Duration.ofSeconds(5));
        advance(LEASE.minusSeconds(5));
        assertThat(lease.isValid()).isFalse();

        // Contact comes back after the lease ran out: forget, then renew.
        store.failure = null;
        log.clear();
        lease.heartbeat(this::forget);
        assertThat(log).containsExactly("heartbeat", "forget (valid=false)");
        assertThat(lease.isValid()).isTrue();
    }

    @Test
    void afterARestartTheLeaseIsInvalidAndTheNextHeartbeatRegistersAgain() {
        lease.heartbeat(this::forget);
        table.markShuttingDown("node-1");
        log.clear();

        lease.restart();

        assertThat(lease.isValid()).isFalse();
        assertThat(lease.sinceLastHeartbeat()).isEmpty();
        lease.heartbeat(this::forget);
        assertThat(log).containsExactly("register", "forget (valid=false)");
        assertThat(table.findLive(Duration.ofSeconds(10))).extracting(InstanceState::status)
                .containsExactly(InstanceStatus.ACTIVE);
    }
}
