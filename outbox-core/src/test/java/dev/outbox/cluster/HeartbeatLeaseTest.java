package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The lease runs by the instance's own monotonic clock; losing it makes the instance forget what it held. */
class HeartbeatLeaseTest {

    private static final Duration LEASE = Duration.ofSeconds(8);

    private final MutableClock databaseClock = MutableClock.startingNow();
    private final InMemoryClusterStore store = new InMemoryClusterStore(databaseClock);
    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final AtomicInteger forgotten = new AtomicInteger();
    private final HeartbeatLease lease = new HeartbeatLease(store, "a", "host", 0, LEASE, nanos::get);

    private void advance(Duration duration) {
        nanos.addAndGet(duration.toNanos());
    }

    @Test
    void theLeaseHoldsFromTheFirstHeartbeatForItsDuration() {
        assertThat(lease.holds()).as("before the first heartbeat").isFalse();
        assertThat(lease.sinceLastHeartbeat()).isEmpty();

        lease.heartbeat(forgotten::incrementAndGet);
        advance(LEASE.minusMillis(1));
        assertThat(lease.holds()).isTrue();
        assertThat(lease.sinceLastHeartbeat()).contains(LEASE.minusMillis(1));

        advance(Duration.ofMillis(1));
        assertThat(lease.holds()).isFalse();
        assertThat(store.findLive(Duration.ofSeconds(10))).singleElement()
                .satisfies(instance -> assertThat(instance.instanceId()).isEqualTo("a"));
    }

    @Test
    void aHeartbeatAfterTheLeaseRanOutForgetsWhatWasHeldBeforeRenewing() {
        lease.heartbeat(forgotten::incrementAndGet);
        lease.heartbeat(forgotten::incrementAndGet);
        assertThat(forgotten).as("first contact registers; a heartbeat in time forgets nothing").hasValue(1);

        advance(LEASE);
        lease.heartbeat(() -> {
            assertThat(lease.isValid()).as("forgotten before the lease is renewed").isFalse();
            forgotten.incrementAndGet();
        });

        assertThat(forgotten).hasValue(2);
        assertThat(lease.holds()).isTrue();
    }

    @Test
    void aRowRemovedAsStaleIsRegisteredAgainAndWhatWasHeldIsForgotten() {
        lease.heartbeat(forgotten::incrementAndGet);
        forgotten.set(0);
        store.remove("a");

        lease.heartbeat(forgotten::incrementAndGet);

        assertThat(forgotten).hasValue(1);
        assertThat(store.findLive(Duration.ofSeconds(10))).hasSize(1);
    }
}
