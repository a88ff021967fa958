package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every instance store must show, run against each implementation: the in-memory store in this module,
 * the database stores in theirs (shipped in the test-jar).
 *
 * <p>Subclasses provide the store, a way to read the database's clock, and guarantee that the instance table is empty
 * before each test. Time is never slept away: a heartbeat is live under {@link #LIVE} (one hour) for the whole test,
 * and stale under {@link #ONE_MILLISECOND} once {@link #letDatabaseTimePass(Duration)} has moved the database's clock
 * by {@link #TICK}; a real database waits for its clock, an in-memory store moves its clock.
 */
public abstract class InstanceStoreContract {

    /** A stale timeout no heartbeat of a test outgrows. */
    protected static final Duration LIVE = Duration.ofHours(1);
    /** Database time let pass to make a heartbeat stale under {@link #ONE_MILLISECOND}. */
    protected static final Duration TICK = Duration.ofMillis(10);
    protected static final Duration ONE_MILLISECOND = Duration.ofMillis(1);
    /** Database time between older and newer heartbeats when a test splits them with one stale timeout. */
    private static final Duration GAP = Duration.ofMillis(300);

    /** The store under test. */
    protected abstract InstanceStore instanceStore();

    /** The current time of the store's clock (for a database: its {@code CURRENT_TIMESTAMP}). */
    protected abstract Instant databaseNow();

    /**
     * Returns once at least {@code duration} of database time has passed since the call. By default waits (at most
     * 30 s) for {@link #databaseNow()} to get there; a store whose clock the test controls moves it instead.
     */
    protected void letDatabaseTimePass(Duration duration) {
        Instant target = databaseNow().plus(duration);
        await().atMost(Duration.ofSeconds(30)).pollDelay(Duration.ZERO).pollInterval(Duration.ofMillis(5))
                .until(() -> !databaseNow().isBefore(target));
    }

    // ================================================================ helpers

    private List<InstanceState> live() {
        return instanceStore().findLive(LIVE);
    }

    private InstanceState live(String instanceId) {
        return live().stream().filter(i -> i.instanceId().equals(instanceId)).findFirst()
                .orElseThrow(() -> new AssertionError("instance " + instanceId + " is not live"));
    }

    private static List<String> ids(List<InstanceState> instances) {
        return instances.stream().map(InstanceState::instanceId).toList();
    }

    /**
     * A stale timeout that, used at once, puts the cutoff just after {@code heartbeat}: that heartbeat and older ones
     * are stale, heartbeats {@link #GAP} younger are live.
     */
    private Duration staleRightAfter(Instant heartbeat) {
        return Duration.between(heartbeat, databaseNow()).minus(1, ChronoUnit.MICROS);
    }

    // ================================================================ register

    @Test
    public final void registerInsertsAnActiveInstanceStampedWithTheDatabaseClock() {
        Instant before = databaseNow();
        instanceStore().register("node-a", "host-a.example", 8080);
        Instant after = databaseNow();

        assertThat(live()).singleElement().satisfies(a -> {
            assertThat(a.instanceId()).isEqualTo("node-a");
            assertThat(a.hostname()).isEqualTo("host-a.example");
            assertThat(a.port()).isEqualTo(8080);
            assertThat(a.status()).isEqualTo(InstanceStatus.ACTIVE);
            assertThat(a.startedAt()).isBetween(before, after);
            assertThat(a.lastHeartbeat()).isEqualTo(a.startedAt());
            assertThat(a.heartbeatAge()).isGreaterThanOrEqualTo(Duration.ZERO)
                    .isLessThanOrEqualTo(Duration.between(a.lastHeartbeat(), databaseNow()));
        });
    }

    @Test
    public final void registerWritesWhatTheInstanceCanProcessAndItsHeartbeatsKeepIt() {
        InstanceCapabilities v2 = new InstanceCapabilities(Set.of("mailer", "kafka:orders", "audit.v2"),
                Set.of("OrderPlaced", "Bestellung storniert, 注文", "a,b&c=d%"), true, "2.4.1+build.7");
        instanceStore().register("node-a", "host-a", 8080, v2);
        instanceStore().register("node-b", "host-b", 8080,
                new InstanceCapabilities(Set.of(), Set.of(), false, null));
        instanceStore().register("node-c", "host-c", 8080);
        instanceStore().heartbeat("node-a");
        instanceStore().markShuttingDown("node-a");

        assertThat(live("node-a").capabilities()).isEqualTo(v2);
        assertThat(live("node-a").takes("kafka:orders")).isTrue();
        assertThat(live("node-a").takes(null)).as("a record processor takes records addressed to no handler")
                .isTrue();
        assertThat(live("node-b").capabilities()).isEqualTo(new InstanceCapabilities(Set.of(), Set.of(), false,
                null));
        assertThat(live("node-b").takes("mailer")).isFalse();
        assertThat(live("node-b").takes(null)).isFalse();
        assertThat(live("node-c").capabilities()).as("registered without saying").isNull();
        assertThat(live("node-c").takes("anything")).as("taken to take everything").isTrue();
    }

    @Test
    public final void registeringAgainReplacesTheCapabilitiesOrClearsThem() {
        instanceStore().register("node-a", "host-a", 8080,
                new InstanceCapabilities(Set.of("a"), Set.of("A"), false, "1"));
        InstanceCapabilities v2 = new InstanceCapabilities(Set.of("a", "b"), Set.of("A", "B"), false, "2");
        instanceStore().register("node-a", "host-a", 8080, v2);
        assertThat(live("node-a").capabilities()).isEqualTo(v2);

        instanceStore().register("node-a", "host-a", 8080);
        assertThat(live("node-a").capabilities()).isNull();
    }

    @Test
    public final void registeringAnExistingIdResetsItsRow() {
        instanceStore().register("node-a", "old-host", 1111);
        instanceStore().markShuttingDown("node-a");
        InstanceState first = live("node-a");
        letDatabaseTimePass(TICK);

        instanceStore().register("node-a", "new-host", 2222);

        assertThat(live()).singleElement().satisfies(a -> {
            assertThat(a.hostname()).isEqualTo("new-host");
            assertThat(a.port()).isEqualTo(2222);
            assertThat(a.status()).isEqualTo(InstanceStatus.ACTIVE);
            assertThat(a.startedAt()).isAfterOrEqualTo(first.startedAt().plus(TICK));
            assertThat(a.lastHeartbeat()).isEqualTo(a.startedAt());
        });
    }

    @Test
    public final void concurrentRegistrationsOfOneIdLeaveExactlyOneActiveRow() throws Exception {
        int threads = 8;
        ExecutorService executor = Executors.newFixedThreadPool(threads);
        try {
            for (int round = 0; round < 50; round++) {
                instanceStore().remove("node-a");
                CyclicBarrier start = new CyclicBarrier(threads);
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int port = 8000 + t;
                    futures.add(executor.submit(() -> {
                        start.await(10, TimeUnit.SECONDS);
                        instanceStore().register("node-a", "host-" + port, port);
                        return null;
                    }));
                }
                for (Future<?> future : futures) {
                    future.get(30, TimeUnit.SECONDS);
                }
                assertThat(live()).as("round %d", round).singleElement().satisfies(a -> {
                    assertThat(a.instanceId()).isEqualTo("node-a");
                    assertThat(a.status()).isEqualTo(InstanceStatus.ACTIVE);
                    assertThat(a.hostname()).isEqualTo("host-" + a.port());
                });
            }
        } finally {
            executor.shutdownNow();
        }
    }

    // ================================================================ heartbeat, shutting down, remove

    @Test
    public final void heartbeatMovesOnlyTheLastHeartbeatToTheDatabasesNow() {
        instanceStore().register("node-a", "host-a", 8080);
        InstanceState first = live("node-a");
        letDatabaseTimePass(TICK);

        Instant before = databaseNow();
        assertThat(instanceStore().heartbeat("node-a")).isTrue();
        Instant after = databaseNow();

        InstanceState second = live("node-a");
        assertThat(second.lastHeartbeat()).isBetween(before, after)
                .isAfterOrEqualTo(first.lastHeartbeat().plus(TICK));
        assertThat(second).usingRecursiveComparison().ignoringFields("lastHeartbeat", "heartbeatAge")
                .isEqualTo(first);
    }

    @Test
    public final void heartbeatOfAnUnknownOrRemovedInstanceIsFalseAndCreatesNoRow() {
        assertThat(instanceStore().heartbeat("ghost")).isFalse();
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().remove("node-a");

        assertThat(instanceStore().heartbeat("node-a")).isFalse();

        assertThat(live()).isEmpty();
    }

    @Test
    public final void heartbeatAndFindLiveRenewsTheHeartbeatAndReturnsTheLiveInstancesWithIt() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);
        InstanceState first = live("node-a");
        letDatabaseTimePass(TICK);

        Instant before = databaseNow();
        List<InstanceState> read = instanceStore().heartbeatAndFindLive("node-a", LIVE).orElseThrow();
        Instant after = databaseNow();

        assertThat(ids(read)).containsExactly("node-a", "node-b");
        InstanceState renewed = live("node-a");
        assertThat(renewed.lastHeartbeat()).isBetween(before, after)
                .isAfterOrEqualTo(first.lastHeartbeat().plus(TICK));
        assertThat(read.get(0).lastHeartbeat()).as("the list shows the heartbeat just written")
                .isEqualTo(renewed.lastHeartbeat());
    }

    @Test
    public final void heartbeatPublishesTheInstancesCountOfCompletedRecordsInItsRowOnly() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);
        assertThat(live("node-a").recordsCompleted()).as("registered, no heartbeat yet").isNull();

        assertThat(instanceStore().heartbeat("node-a", 5)).isTrue();
        assertThat(live("node-a").recordsCompleted()).isEqualTo(5L);
        assertThat(live("node-b").recordsCompleted()).as("another instance's row").isNull();

        List<InstanceState> read = instanceStore().heartbeatAndFindLive("node-b", 3_000_000_000L, LIVE).orElseThrow();
        assertThat(read).extracting(InstanceState::instanceId, InstanceState::recordsCompleted)
                .containsExactly(tuple("node-a", 5L), tuple("node-b", 3_000_000_000L));
        assertThat(instanceStore().heartbeat("node-a", 12)).isTrue();
        assertThat(live("node-a").recordsCompleted()).as("each heartbeat replaces the count").isEqualTo(12L);
    }

    @Test
    public final void aNegativeCountIsRefusedNamingItAndLeavesTheRowAsItWas() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().heartbeat("node-a", 4);

        assertThatThrownBy(() -> instanceStore().heartbeat("node-a", -1))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recordsCompleted");
        assertThatThrownBy(() -> instanceStore().heartbeatAndFindLive("node-a", -1, LIVE))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("recordsCompleted");
        assertThat(live("node-a").recordsCompleted()).isEqualTo(4L);
    }

    @Test
    public final void aHeartbeatOrARegistrationWithoutACountLeavesItUnknown() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().heartbeat("node-a", 7);

        assertThat(instanceStore().heartbeat("node-a")).isTrue();
        assertThat(live("node-a").recordsCompleted()).as("a heartbeat that publishes no count").isNull();

        instanceStore().heartbeat("node-a", 7);
        assertThat(instanceStore().heartbeatAndFindLive("node-a", LIVE).orElseThrow())
                .extracting(InstanceState::recordsCompleted).containsExactly((Long) null);

        instanceStore().heartbeat("node-a", 7);
        instanceStore().register("node-a", "host-a", 8080);
        assertThat(live("node-a").recordsCompleted()).as("registered again: a restart counts afresh").isNull();
    }

    @Test
    public final void heartbeatWithACountOfARemovedInstanceIsFalseAndCreatesNoRow() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().remove("node-a");

        assertThat(instanceStore().heartbeat("node-a", 1)).isFalse();
        assertThat(instanceStore().heartbeatAndFindLive("node-a", 1, LIVE)).isEmpty();

        assertThat(live()).isEmpty();
    }

    @Test
    public final void heartbeatAndFindLiveOfARemovedInstanceReadsNothingAndCreatesNoRow() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);
        instanceStore().remove("node-a");

        assertThat(instanceStore().heartbeatAndFindLive("node-a", LIVE)).isEmpty();

        assertThat(ids(live())).containsExactly("node-b");
    }

    @Test
    public final void anInstanceShuttingDownStaysLiveAndKeepsHeartbeating() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);

        instanceStore().markShuttingDown("node-a");
        instanceStore().markShuttingDown("ghost");

        assertThat(live()).extracting(InstanceState::instanceId, InstanceState::status).containsExactly(
                tuple("node-a", InstanceStatus.SHUTTING_DOWN), tuple("node-b", InstanceStatus.ACTIVE));
        assertThat(instanceStore().heartbeat("node-a")).isTrue();
        assertThat(live("node-a").status()).isEqualTo(InstanceStatus.SHUTTING_DOWN);
    }

    @Test
    public final void removeDeletesOnlyThatInstance() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);

        instanceStore().remove("node-a");
        instanceStore().remove("ghost");

        assertThat(ids(live())).containsExactly("node-b");
    }

    // ================================================================ liveness

    @Test
    public final void findLiveReturnsTheInstancesOrderedById() {
        for (String id : new String[] {"node-c", "node-a", "node-d", "node-b"}) {
            instanceStore().register(id, "host-of-" + id, 9000);
        }

        assertThat(ids(live())).containsExactly("node-a", "node-b", "node-c", "node-d");
        assertThat(live()).allSatisfy(i -> assertThat(i.hostname()).isEqualTo("host-of-" + i.instanceId()));
    }

    @Test
    public final void anInstanceIsLiveUntilTheDatabaseClockPassesItsHeartbeatByTheStaleTimeout() {
        instanceStore().register("node-a", "host-a", 8080);
        letDatabaseTimePass(TICK);

        assertThat(ids(instanceStore().findLive(LIVE))).containsExactly("node-a");
        assertThat(live("node-a").heartbeatAge()).isGreaterThanOrEqualTo(TICK);
        assertThat(instanceStore().findLive(ONE_MILLISECOND)).isEmpty();

        assertThat(instanceStore().heartbeat("node-a")).isTrue();
        assertThat(live("node-a").heartbeatAge()).isLessThan(TICK.multipliedBy(100));
        letDatabaseTimePass(TICK);
        assertThat(instanceStore().findLive(ONE_MILLISECOND)).isEmpty();
        assertThat(ids(instanceStore().findLive(LIVE))).containsExactly("node-a");
    }

    @Test
    public final void findLiveAndRemoveStaleSplitOlderFromYoungerHeartbeats() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);
        Instant older = live("node-a").lastHeartbeat();
        letDatabaseTimePass(GAP);
        instanceStore().register("node-c", "host-c", 8080);
        assertThat(instanceStore().heartbeat("node-b")).isTrue();

        assertThat(ids(instanceStore().findLive(staleRightAfter(older)))).containsExactly("node-b", "node-c");
        assertThat(instanceStore().removeStale(LIVE)).isZero();
        assertThat(instanceStore().removeStale(staleRightAfter(older))).isEqualTo(1);

        assertThat(ids(live())).containsExactly("node-b", "node-c");
        assertThat(instanceStore().heartbeat("node-a")).isFalse();
    }

    @Test
    public final void removeStaleRemovesEveryInstanceOnceTheDatabaseClockHasPassedThem() {
        instanceStore().register("node-a", "host-a", 8080);
        instanceStore().register("node-b", "host-b", 8080);
        instanceStore().markShuttingDown("node-b");
        letDatabaseTimePass(TICK);

        assertThat(instanceStore().removeStale(LIVE)).isZero();
        assertThat(instanceStore().removeStale(ONE_MILLISECOND)).isEqualTo(2);

        assertThat(live()).isEmpty();
        assertThat(instanceStore().removeStale(ONE_MILLISECOND)).isZero();
    }
}
