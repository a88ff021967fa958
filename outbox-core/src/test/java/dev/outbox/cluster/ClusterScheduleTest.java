package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.spi.InstanceState;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicLong;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/**
 * Rounds after heartbeats, driven by hand on a monotonic clock the test sets, with rounds run in the calling thread:
 * what each round is given, and when one is queued.
 */
class ClusterScheduleTest {

    private static final Duration HEARTBEAT = Duration.ofSeconds(2);

    private final AtomicLong nanos = new AtomicLong(1_000_000_000L);
    private final InMemoryClusterStore table = new InMemoryClusterStore(
            new MutableClock(Instant.parse("2026-01-01T00:00:00Z")));
    private final HeartbeatLease lease = new HeartbeatLease(table, "node-1", "host-1", 8080, null, null,
            Duration.ofSeconds(8), Duration.ofSeconds(10), nanos::get);
    /** What each round was given: the instance ids, or "reads itself". */
    private final List<String> rounds = new ArrayList<>();
    private final Executor inline = Runnable::run;

    private ClusterSchedule schedule(Duration rebalance) {
        return new ClusterSchedule(new ClusterTimings(HEARTBEAT, Duration.ofSeconds(10), rebalance), lease,
                nanos::get, this::round);
    }

    private void round(@Nullable List<InstanceState> members) {
        rounds.add(members == null ? "reads itself"
                : members.stream().map(InstanceState::instanceId).toList().toString());
    }

    private void heartbeatAfter(Duration wait, ClusterSchedule schedule) {
        nanos.addAndGet(wait.toNanos());
        lease.heartbeat(() -> { });
        schedule.heartbeatDone(inline);
    }

    @Test
    void aRoundFollowsEachHeartbeatWithTheInstancesItReadWhenBothIntervalsAreEqual() {
        ClusterSchedule schedule = schedule(HEARTBEAT);
        lease.heartbeat(() -> { }); // registers: reads no members
        schedule.heartbeatDone(inline);
        assertThat(rounds).as("the last round started no time ago").isEmpty();
        table.register("node-2", "host-2", 8080);

        heartbeatAfter(HEARTBEAT, schedule);
        heartbeatAfter(HEARTBEAT, schedule);

        assertThat(rounds).containsExactly("[node-1, node-2]", "[node-1, node-2]");
    }

    @Test
    void aLongerRebalanceIntervalTakesEveryFewHeartbeatsNeverLessOftenThanAsked() {
        ClusterSchedule schedule = schedule(Duration.ofSeconds(5));
        lease.heartbeat(() -> { });

        for (int i = 0; i < 6; i++) {
            heartbeatAfter(HEARTBEAT, schedule);
        }

        // due 4 s (5 s less half a heartbeat interval) after the last round: every second heartbeat, 4 s apart
        assertThat(rounds).hasSize(3);
    }

    @Test
    void aRoundAfterAFailedHeartbeatReadsTheInstancesItself() {
        ClusterSchedule schedule = schedule(HEARTBEAT);
        lease.heartbeat(() -> { });
        heartbeatAfter(HEARTBEAT, schedule);
        rounds.clear();

        nanos.addAndGet(HEARTBEAT.toNanos() + 1);
        schedule.heartbeatDone(inline); // no heartbeat succeeded within the last heartbeat interval

        assertThat(rounds).containsExactly("reads itself");
    }

    @Test
    void noRoundIsQueuedWhileOneIsQueuedAlready() {
        ClusterSchedule schedule = schedule(HEARTBEAT);
        lease.heartbeat(() -> { });
        List<Runnable> queued = new ArrayList<>();

        nanos.addAndGet(HEARTBEAT.toNanos());
        schedule.heartbeatDone(queued::add);
        nanos.addAndGet(HEARTBEAT.toNanos());
        schedule.heartbeatDone(queued::add);
        assertThat(queued).hasSize(1);

        queued.get(0).run();
        nanos.addAndGet(HEARTBEAT.toNanos());
        schedule.heartbeatDone(queued::add);
        assertThat(queued).hasSize(2);
    }
}
