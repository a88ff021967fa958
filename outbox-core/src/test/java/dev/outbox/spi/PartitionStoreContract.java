package dev.outbox.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.partition.PartitionHasher;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every partition store must show, run against each implementation: the in-memory store in this module,
 * the database stores in theirs (shipped in the test-jar).
 *
 * <p>Subclasses provide the partition store, the instance store of the same database (owners' liveness comes from
 * it), a way to read the database's clock, and guarantee before each test that no instance is registered and every
 * partition is free at epoch 0. Time is never slept away: an owner is live under {@link #LIVE} (one hour) for the whole
 * test, and stale under {@link #ONE_MILLISECOND} once {@link #letDatabaseTimePass(Duration)} has moved the database's
 * clock by {@link #TICK}.
 */
public abstract class PartitionStoreContract {

    /** A stale timeout no heartbeat of a test outgrows. */
    protected static final Duration LIVE = Duration.ofHours(1);
    /** Database time let pass to make a heartbeat stale under {@link #ONE_MILLISECOND}. */
    protected static final Duration TICK = Duration.ofMillis(10);
    protected static final Duration ONE_MILLISECOND = Duration.ofMillis(1);

    private static final int P = 7;

    /** The store under test. */
    protected abstract PartitionStore partitionStore();

    /** The instance table the partition store judges owners' liveness by. */
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

    private PartitionState state(int partition) {
        return partitionStore().findAll().get(partition);
    }

    private void register(String... instanceIds) {
        for (String id : instanceIds) {
            instanceStore().register(id, "host-of-" + id, 8080);
        }
    }

    private boolean claim(int partition, long expectedEpoch, String instanceId) {
        return partitionStore().claim(partition, expectedEpoch, instanceId, LIVE);
    }

    private static PartitionState owned(int partition, String owner, long epoch) {
        return new PartitionState(partition, owner, epoch);
    }

    private static PartitionState free(int partition, long epoch) {
        return new PartitionState(partition, null, epoch);
    }

    /** Every partition other than {@code partition} is still free at epoch 0. */
    private void othersUntouched(int partition) {
        assertThat(partitionStore().findAll()).filteredOn(s -> s.partition() != partition)
                .allSatisfy(s -> assertThat(s).isEqualTo(free(s.partition(), 0)));
    }

    // ================================================================ reading

    @Test
    public final void findAllReturnsEveryPartitionInOrder() {
        List<PartitionState> all = partitionStore().findAll();

        assertThat(all).hasSize(PartitionHasher.PARTITION_COUNT);
        assertThat(all).extracting(PartitionState::partition)
                .containsExactlyElementsOf(IntStream.range(0, PartitionHasher.PARTITION_COUNT).boxed().toList());
        assertThat(all).allSatisfy(s -> assertThat(s).isEqualTo(free(s.partition(), 0)));
    }

    // ================================================================ claim

    @Test
    public final void claimOfAFreePartitionMakesTheClaimantOwnerUnderTheNextEpoch() {
        register("node-a");

        assertThat(claim(P, 0, "node-a")).isTrue();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 1));
        othersUntouched(P);
    }

    @Test
    public final void claimUnderAnotherEpochThanTheRowsFails() {
        register("node-a", "node-b");

        assertThat(claim(P, 1, "node-a")).as("free row, but at epoch 0").isFalse();
        assertThat(state(P)).isEqualTo(free(P, 0));
        assertThat(claim(P, 0, "node-a")).isTrue();
        assertThat(claim(P, 0, "node-a")).as("the owner itself, under the epoch it replaced").isFalse();
        assertThat(partitionStore().claim(P, 0, "node-b", ONE_MILLISECOND)).isFalse();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 1));
    }

    @Test
    public final void claimOfAPartitionOwnedByALiveOtherInstanceFails() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();
        letDatabaseTimePass(TICK);

        assertThat(claim(P, 1, "node-b")).isFalse();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 1));
    }

    @Test
    public final void anOwnerThatIsShuttingDownButHeartbeatingKeepsItsPartitions() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();
        instanceStore().markShuttingDown("node-a");

        assertThat(claim(P, 1, "node-b")).isFalse();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 1));
    }

    @Test
    public final void claimOfAPartitionWhoseOwnerIsStaleByTheDatabaseClockSucceeds() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();
        letDatabaseTimePass(TICK);

        assertThat(partitionStore().claim(P, 1, "node-b", LIVE)).as("owner live under one hour").isFalse();
        assertThat(partitionStore().claim(P, 1, "node-b", ONE_MILLISECOND)).isTrue();

        assertThat(state(P)).isEqualTo(owned(P, "node-b", 2));
    }

    @Test
    public final void claimOfAPartitionWhoseOwnerHasNoRowSucceeds() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();
        assertThat(claim(P + 1, 0, "never-registered")).isTrue();
        instanceStore().remove("node-a");

        assertThat(claim(P, 1, "node-b")).isTrue();
        assertThat(claim(P + 1, 1, "node-b")).isTrue();

        assertThat(state(P)).isEqualTo(owned(P, "node-b", 2));
        assertThat(state(P + 1)).isEqualTo(owned(P + 1, "node-b", 2));
    }

    @Test
    public final void theOwnerMayClaimAgainEvenWhenItIsStaleAndEachClaimAddsOne() {
        register("node-a");
        assertThat(claim(P, 0, "node-a")).isTrue();
        letDatabaseTimePass(TICK);

        assertThat(partitionStore().claim(P, 1, "node-a", ONE_MILLISECOND)).isTrue();
        assertThat(state(P)).isEqualTo(owned(P, "node-a", 2));
        assertThat(claim(P, 2, "node-a")).isTrue();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 3));
        othersUntouched(P);
    }

    @Test
    public final void theEpochGrowsByExactlyOnePerClaimAndNeverOnRelease() {
        register("node-a", "node-b");
        List<Long> epochs = new ArrayList<>();

        assertThat(claim(P, 0, "node-a")).isTrue();
        epochs.add(state(P).epoch());
        assertThat(claim(P, 1, "node-a")).isTrue();
        epochs.add(state(P).epoch());
        assertThat(partitionStore().release(P, 2, "node-a")).isTrue();
        epochs.add(state(P).epoch());
        assertThat(claim(P, 2, "node-b")).isTrue();
        epochs.add(state(P).epoch());
        assertThat(claim(P, 3, "node-a")).as("node-b is live").isFalse();
        epochs.add(state(P).epoch());
        instanceStore().remove("node-b");
        assertThat(claim(P, 3, "node-a")).isTrue();
        epochs.add(state(P).epoch());

        assertThat(epochs).containsExactly(1L, 2L, 2L, 3L, 3L, 4L);
        assertThat(state(P)).isEqualTo(owned(P, "node-a", 4));
    }

    @Test
    public final void claimAndReleaseOfAPartitionThatDoesNotExistFail() {
        register("node-a");

        assertThat(claim(PartitionHasher.PARTITION_COUNT, 0, "node-a")).isFalse();
        assertThat(claim(-1, 0, "node-a")).isFalse();
        assertThat(partitionStore().release(PartitionHasher.PARTITION_COUNT, 0, "node-a")).isFalse();

        assertThat(partitionStore().findAll()).hasSize(PartitionHasher.PARTITION_COUNT);
        othersUntouched(-1);
    }

    // ================================================================ release

    @Test
    public final void releaseByTheOwnerUnderItsEpochFreesThePartitionAndKeepsTheEpoch() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();

        assertThat(partitionStore().release(P, 1, "node-a")).isTrue();

        assertThat(state(P)).isEqualTo(free(P, 1));
        assertThat(partitionStore().release(P, 1, "node-a")).as("already free").isFalse();
        assertThat(claim(P, 0, "node-b")).as("the epoch was kept").isFalse();
        assertThat(claim(P, 1, "node-b")).isTrue();
        assertThat(state(P)).isEqualTo(owned(P, "node-b", 2));
        othersUntouched(P);
    }

    @Test
    public final void releaseByAnotherInstanceOrUnderAnotherEpochFails() {
        register("node-a", "node-b");
        assertThat(claim(P, 0, "node-a")).isTrue();

        assertThat(partitionStore().release(P, 1, "node-b")).isFalse();
        assertThat(partitionStore().release(P, 0, "node-a")).isFalse();
        assertThat(partitionStore().release(P, 2, "node-a")).isFalse();
        assertThat(partitionStore().release(P + 1, 0, "node-a")).as("a free partition").isFalse();

        assertThat(state(P)).isEqualTo(owned(P, "node-a", 1));
        assertThat(state(P + 1)).isEqualTo(free(P + 1, 0));
    }

    // ================================================================ concurrency

    @Test
    public final void ofTwoConcurrentClaimsUnderTheSameEpochExactlyOneWins() throws Exception {
        register("node-a", "node-b");
        int partitions = PartitionHasher.PARTITION_COUNT;
        ExecutorService executor = Executors.newFixedThreadPool(2);
        try {
            for (long epoch = 0; epoch < 3; epoch++) {
                CyclicBarrier start = new CyclicBarrier(2);
                Future<Set<Integer>> a = executor.submit(claimAll(start, epoch, "node-a"));
                Future<Set<Integer>> b = executor.submit(claimAll(start, epoch, "node-b"));
                Set<Integer> wonByA = a.get(60, TimeUnit.SECONDS);
                Set<Integer> wonByB = b.get(60, TimeUnit.SECONDS);

                Set<Integer> wonByBoth = new HashSet<>(wonByA);
                wonByBoth.retainAll(wonByB);
                assertThat(wonByBoth).as("epoch %d", epoch).isEmpty();
                assertThat(wonByA.size() + wonByB.size()).as("epoch %d", epoch).isEqualTo(partitions);
                for (PartitionState state : partitionStore().findAll()) {
                    String winner = wonByA.contains(state.partition()) ? "node-a" : "node-b";
                    assertThat(state).isEqualTo(owned(state.partition(), winner, epoch + 1));
                    assertThat(partitionStore().release(state.partition(), epoch + 1, winner)).isTrue();
                }
            }
        } finally {
            executor.shutdownNow();
        }
    }

    /** Claims every partition in order under {@code epoch} once both claimers are ready; returns the ones won. */
    private Callable<Set<Integer>> claimAll(CyclicBarrier start, long epoch, String instanceId) {
        return () -> {
            start.await(10, TimeUnit.SECONDS);
            Set<Integer> won = new HashSet<>();
            for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
                if (claim(partition, epoch, instanceId)) {
                    won.add(partition);
                }
            }
            return won;
        };
    }
}
