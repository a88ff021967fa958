package dev.outbox.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.cluster.ForwardingInstanceStore;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.WakeUpSource;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A node on in-memory stores. The instance and partition tables are watched: their calls, the wake-up source's start
 * and close, the handler's end and the stored completions go into one event log, whose order is the order of the
 * start and the hand-over. Completions are fenced writes checked against the partition table, so a completion stored
 * after the release would be refused.
 */
class OutboxNodeTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    private static final String ID = "node-1";

    private final MutableClock databaseClock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(databaseClock);
    private final InMemoryRecordStore records = new InMemoryRecordStore(cluster);
    private final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private final AtomicInteger fetches = new AtomicInteger();
    private final RecordingWakeUps wakeUps = new RecordingWakeUps();
    private final List<OutboxNode> nodes = new ArrayList<>();
    private final CountDownLatch proceed = new CountDownLatch(1);

    @AfterEach
    void closeNodes() {
        proceed.countDown(); // never leave a handler blocked
        nodes.forEach(OutboxNode::close);
    }

    // ------------------------------------------------------------------ watched parts

    private final class WatchedRecords extends ForwardingRecordStore {
        WatchedRecords(InMemoryRecordStore delegate) {
            super(delegate);
        }

        @Override
        public FetchedRows findDue(DueRecordsQuery query) {
            fetches.incrementAndGet();
            return super.findDue(query);
        }

        @Override
        public List<Delivery> markCompleted(List<Delivery> deliveries, Instant completedAt) {
            List<Delivery> refused = super.markCompleted(deliveries, completedAt);
            events.add("markCompleted (refused " + refused.size() + ")");
            return refused;
        }
    }

    private final class WatchedInstances extends ForwardingInstanceStore {

        WatchedInstances() {
            super(cluster);
        }

        @Override
        public void register(String instanceId, String hostname, int port) {
            events.add("register");
            super.register(instanceId, hostname, port);
        }

        @Override
        public void markShuttingDown(String instanceId) {
            events.add("markShuttingDown");
            super.markShuttingDown(instanceId);
        }

        @Override
        public void remove(String instanceId) {
            events.add("remove");
            super.remove(instanceId);
        }
    }

    private final class WatchedPartitions implements PartitionStore {
        @Override
        public List<PartitionState> findAll() {
            return cluster.findAll();
        }

        @Override
        public boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout) {
            return cluster.claim(partition, expectedEpoch, instanceId, staleTimeout);
        }

        @Override
        public boolean release(int partition, long epoch, String instanceId) {
            events.add("release");
            return cluster.release(partition, epoch, instanceId);
        }
    }

    /** Logs start and close, with what the rest of the node looked like at that moment. */
    private final class RecordingWakeUps implements WakeUpSource {
        final AtomicReference<@Nullable Target> target = new AtomicReference<>();
        final AtomicInteger closes = new AtomicInteger();
        volatile @Nullable OutboxNode node;

        @Override
        public void start(Target target) {
            this.target.set(target);
            OutboxNode current = node;
            events.add("wakeUps.start (processor running=" + current.processor().isRunning() + ", owned="
                    + current.coordinator().map(c -> c.ownedPartitions().size()).orElse(-1) + ")");
        }

        @Override
        public void close() {
            closes.incrementAndGet();
            events.add("wakeUps.close (instance " + instanceStatus() + ")");
        }
    }

    private @Nullable InstanceStatus instanceStatus() {
        return cluster.findLive(Duration.ofDays(1)).stream().filter(row -> row.instanceId().equals(ID))
                .map(InstanceState::status).findFirst().orElse(null);
    }

    // ------------------------------------------------------------------ building

    private static ProcessingOptions options() {
        return ProcessingOptions.defaults().withShutdownTimeout(PATIENCE).withPollInterval(Duration.ofMillis(200));
    }

    private OutboxNode clusteredNode(OutboxRecordProcessor handler) {
        OutboxNode node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(new WatchedRecords(records)).handler(handler)
                        .clock(clock).options(options()))
                .cluster(ClusterCoordinator.builder().instanceStore(new WatchedInstances())
                        .partitionStore(new WatchedPartitions()).instanceId(ID))
                .purger(OutboxPurger.builder().store(records).clock(clock).retention(Duration.ofDays(7)))
                .wakeUpSource(wakeUps)
                .build();
        wakeUps.node = node;
        nodes.add(node);
        return node;
    }

    private OutboxRecord save(String aggregateId, String payload) {
        return records.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload(payload)
                .build(clock));
    }

    private OutboxRecordStatus statusOf(OutboxRecord record) {
        return records.findById(record.getId()).orElseThrow().getStatus();
    }

    private int indexOf(String prefix) {
        synchronized (events) {
            for (int i = 0; i < events.size(); i++) {
                if (events.get(i).startsWith(prefix)) {
                    return i;
                }
            }
        }
        throw new AssertionError("no event " + prefix + " in " + events);
    }

    // ------------------------------------------------------------------ tests

    @Test
    void startJoinsTheClusterThenProcessesThenListensToTheWakeUpSources() {
        OutboxNode node = clusteredNode(record -> { });

        node.start();

        assertThat(node.isRunning()).isTrue();
        ClusterCoordinator coordinator = node.coordinator().orElseThrow();
        assertThat(coordinator.ownedPartitions().size()).isEqualTo(256);
        assertThat(cluster.findAll()).extracting(PartitionState::owner).containsOnly(ID);
        assertThat(instanceStatus()).isEqualTo(InstanceStatus.ACTIVE);
        assertThat(wakeUps.target.get()).isSameAs(node.processor());
        // Joined first, then the processor, then the wake-up source, which found both ready.
        assertThat(events).containsExactly("register", "wakeUps.start (processor running=true, owned=256)");

        OutboxRecord record = save(AggregateIds.inPartition(42, "order"), "p");
        wakeUps.target.get().wakeUpFor(List.of(42));
        await().atMost(PATIENCE).until(() -> statusOf(record) == OutboxRecordStatus.COMPLETED);
        assertThat(events).contains("markCompleted (refused 0)");

        node.start();
        assertThat(events).as("a second start does nothing").filteredOn(e -> e.startsWith("wakeUps.start"))
                .hasSize(1);
    }

    @Test
    void thePurgerWorksInThePartitionsTheNodeOwns() {
        OutboxNode node = clusteredNode(record -> { });
        OutboxPurger purger = node.purger().orElseThrow();
        node.start();
        OutboxRecord done = save("order-1", "p");
        node.processor().wakeUp();
        await().atMost(PATIENCE).until(() -> statusOf(done) == OutboxRecordStatus.COMPLETED);
        clock.advance(Duration.ofDays(8));

        node.stop();
        assertThat(purger.purgeNow()).as("a stopped node owns no partition").isZero();
        assertThat(records.findById(done.getId())).isPresent();

        node.start();
        assertThat(purger.purgeNow()).isEqualTo(1);
        assertThat(records.findById(done.getId())).isEmpty();
    }

    @Test
    void stopClosesTheWakeUpSourcesMarksShuttingDownDrainsThenReleasesEveryPartitionAndLeaves() throws Exception {
        int partition = 17;
        CountDownLatch handlerStarted = new CountDownLatch(1);
        AtomicReference<@Nullable String> ownerWhileHandling = new AtomicReference<>();
        OutboxNode node = clusteredNode(record -> {
            handlerStarted.countDown();
            if (!proceed.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)) {
                throw new IllegalStateException("the test never let the handler finish");
            }
            ownerWhileHandling.set(cluster.findAll().get(partition).owner());
            events.add("handler done");
        });
        node.start();
        long epoch = cluster.findAll().get(partition).epoch();
        OutboxRecord record = save(AggregateIds.inPartition(partition, "order"), "slow");
        node.processor().wakeUp();
        assertThat(handlerStarted.await(PATIENCE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        AtomicBoolean drained = new AtomicBoolean();
        Thread stopping = new Thread(() -> drained.set(node.stop()), "test-stop");
        stopping.start();
        // Stop got as far as it may while the handler runs: the instance is shutting down, and stop waits.
        await().atMost(PATIENCE).until(() -> events.contains("markShuttingDown")
                && (stopping.getState() == Thread.State.WAITING || stopping.getState() == Thread.State.TIMED_WAITING));
        assertThat(stopping.isAlive()).isTrue();
        assertThat(instanceStatus()).isEqualTo(InstanceStatus.SHUTTING_DOWN);
        assertThat(cluster.findAll().get(partition).owner()).as("still owned while its record is handled")
                .isEqualTo(ID);
        assertThat(events).doesNotContain("release", "remove");
        assertThat(node.coordinator().orElseThrow().ownedPartitions().isEmpty())
                .as("but handed out no more").isTrue();

        proceed.countDown();
        stopping.join(PATIENCE.toMillis());

        assertThat(stopping.isAlive()).isFalse();
        assertThat(drained).as("every handler finished in time").isTrue();
        assertThat(ownerWhileHandling.get()).isEqualTo(ID);
        assertThat(statusOf(record)).as("its completion was stored under its fence, before the release")
                .isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(cluster.findAll()).extracting(PartitionState::owner).containsOnlyNulls();
        assertThat(cluster.findAll().get(partition).epoch()).isEqualTo(epoch);
        assertThat(cluster.findLive(Duration.ofDays(1))).as("the instance row is gone").isEmpty();
        assertThat(wakeUps.closes).hasValue(1);
        assertThat(node.isRunning()).isFalse();

        assertThat(indexOf("wakeUps.close (instance ACTIVE)")).isLessThan(indexOf("markShuttingDown"));
        assertThat(indexOf("markShuttingDown")).isLessThan(indexOf("handler done"));
        assertThat(indexOf("handler done")).isLessThan(indexOf("markCompleted (refused 0)"));
        assertThat(indexOf("markCompleted (refused 0)")).isLessThan(indexOf("release"));
        assertThat(events.lastIndexOf("release")).isLessThan(indexOf("remove"));
        assertThat(events).filteredOn("release"::equals).hasSize(256);
    }

    @Test
    void aStoppedNodeCanStartAgainAndRejoins() {
        OutboxNode node = clusteredNode(record -> { });
        node.start();
        node.stop();
        assertThat(node.stop()).as("a second stop does nothing").isTrue();
        assertThat(wakeUps.closes).hasValue(1);

        node.start();

        assertThat(node.coordinator().orElseThrow().ownedPartitions().size()).isEqualTo(256);
        assertThat(cluster.findAll()).allSatisfy(row -> {
            assertThat(row.owner()).isEqualTo(ID);
            assertThat(row.epoch()).as("claimed anew").isEqualTo(2);
        });
        OutboxRecord record = save("order-1", "p");
        node.processor().wakeUp();
        await().atMost(PATIENCE).until(() -> statusOf(record) == OutboxRecordStatus.COMPLETED);
    }

    @Test
    void aNodeWithoutAClusterOwnsEveryPartition() {
        InMemoryRecordStore unfenced = new InMemoryRecordStore();
        List<String> handled = Collections.synchronizedList(new ArrayList<>());
        OutboxNode node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(unfenced).clock(clock).options(options())
                        .handler(record -> handled.add(record.getPayload())))
                .purger(OutboxPurger.builder().store(unfenced).clock(clock))
                .build();
        nodes.add(node);
        for (int partition : new int[] {0, 100, 255}) {
            unfenced.save(OutboxRecord.builder().aggregateId(AggregateIds.inPartition(partition, "agg"))
                    .eventType("E").payload("p" + partition).build(clock));
        }

        assertThat(node.coordinator()).isEmpty();
        assertThat(node.processor().processDueRecords()).isEqualTo(3);

        assertThat(handled).containsExactlyInAnyOrder("p0", "p100", "p255");
        assertThat(unfenced.countByStatus(OutboxRecordStatus.COMPLETED)).isEqualTo(3);
        clock.advance(Duration.ofDays(8));
        assertThat(node.purger().orElseThrow().purgeNow()).as("purged in every partition").isEqualTo(3);
    }

    @Test
    void localWakeUpsGoNowhereBeforeStartAndAfterCloseAndToTheTargetInBetween() {
        LocalWakeUps local = new LocalWakeUps();
        List<String> told = new ArrayList<>();
        WakeUpSource.Target target = new WakeUpSource.Target() {
            @Override
            public void wakeUp() {
                told.add("wakeUp");
            }

            @Override
            public void wakeUpFor(Collection<Integer> partitions) {
                told.add("wakeUpFor " + partitions);
            }
        };

        local.recordsCommitted(List.of(1));
        local.recordsDue();
        assertThat(told).as("before start").isEmpty();

        local.start(target);
        local.recordsCommitted(List.of(1, 2));
        local.recordsDue();
        assertThat(told).containsExactly("wakeUpFor [1, 2]", "wakeUp");

        local.close();
        local.recordsCommitted(List.of(3));
        local.recordsDue();
        assertThat(told).as("after close").hasSize(2);
    }

    @Test
    void localWakeUpsWakeARunningNodesProcessor() {
        // An hour between polls: only a wake-up gets the record handled within the test's patience.
        LocalWakeUps local = new LocalWakeUps();
        InMemoryRecordStore unfenced = new InMemoryRecordStore();
        OutboxNode node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(new ForwardingRecordStore(unfenced) {
                    @Override
                    public FetchedRows findDue(DueRecordsQuery query) {
                        fetches.incrementAndGet();
                        return super.findDue(query);
                    }
                }).clock(clock).handler(record -> { })
                        .options(options().withPollInterval(Duration.ofHours(1))))
                .wakeUpSource(local)
                .build();
        nodes.add(node);
        local.recordsCommitted(List.of(5)); // nowhere yet

        node.start();
        await().atMost(PATIENCE).until(() -> fetches.get() >= 1); // the first poll found nothing
        OutboxRecord record = unfenced.save(OutboxRecord.builder().aggregateId(AggregateIds.inPartition(5, "agg"))
                .eventType("E").payload("p").build(clock));
        local.recordsCommitted(List.of(5));

        await().atMost(PATIENCE).until(() -> unfenced.findById(record.getId()).orElseThrow().getStatus()
                == OutboxRecordStatus.COMPLETED);
        assertThat(fetches.get()).isGreaterThanOrEqualTo(2);
    }

    // Found by these tests: a start that failed halfway (a wake-up source refusing to start) left the coordinator
    // heartbeating and holding every partition, since stop() and close() took the node for never started.
    @Test
    void aStartThatFailsHalfwayLeavesNothingRunning() {
        OutboxNode node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(records).handler(record -> { }).clock(clock)
                        .options(options()))
                .cluster(ClusterCoordinator.builder().instanceStore(cluster).partitionStore(cluster).instanceId(ID))
                .wakeUpSource(target -> {
                    throw new IllegalStateException("LISTEN connection refused");
                })
                .build();
        nodes.add(node);

        assertThatThrownBy(node::start).hasMessage("LISTEN connection refused");

        assertThat(node.isRunning()).isFalse();
        assertThat(node.processor().isRunning()).as("processor stopped").isFalse();
        assertThat(node.coordinator().orElseThrow().ownedPartitions().size()).isZero();
        assertThat(cluster.findAll()).extracting(PartitionState::owner).containsOnlyNulls();
        assertThat(cluster.findLive(Duration.ofDays(1))).as("the instance left the table").isEmpty();
    }
}
