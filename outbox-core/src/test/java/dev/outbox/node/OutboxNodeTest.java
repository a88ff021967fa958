package dev.outbox.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.WakeUpSource;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The node wires its parts and runs the start and stop protocol: join, process, listen; then hand over. */
class OutboxNodeTest {

    private static final Duration DEADLINE = Duration.ofSeconds(30);

    private final MutableClock databaseClock = MutableClock.startingNow();
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(databaseClock);
    private final InMemoryRecordStore records = new InMemoryRecordStore(cluster);
    private final List<String> steps = new CopyOnWriteArrayList<>();
    private final List<OutboxNode> nodes = new ArrayList<>();

    @AfterEach
    void closeNodes() {
        nodes.forEach(OutboxNode::close);
    }

    private OutboxNode node(OutboxProcessor.Builder processor) {
        OutboxNode node = OutboxNode.builder()
                .processor(processor.recordStore(records)
                        .options(ProcessingOptions.defaults().withShutdownTimeout(DEADLINE)))
                .cluster(ClusterCoordinator.builder().instanceStore(cluster).partitionStore(cluster)
                        .instanceId("node-a"))
                .purger(OutboxPurger.builder().store(records))
                .wakeUpSource(new RecordingSource())
                .build();
        nodes.add(node);
        return node;
    }

    private OutboxRecord save(String aggregateId) {
        return records.save(OutboxRecord.builder().aggregateId(aggregateId).eventType("E").payload("{}")
                .build(databaseClock));
    }

    private OutboxRecordStatus status(OutboxRecord record) {
        return records.findById(record.getId()).orElseThrow().getStatus();
    }

    private long ownedInTable() {
        return cluster.findAll().stream().filter(row -> "node-a".equals(row.owner())).count();
    }

    @Test
    void startJoinsTheClusterProcessesAndListensAndStopHandsEverythingOver() {
        OutboxNode node = node(OutboxProcessor.builder().handler(record -> steps.add("handled")));
        OutboxRecord record = save("order-1");

        node.start();

        assertThat(node.coordinator().orElseThrow().ownedPartitions().size()).isEqualTo(256);
        assertThat(steps).contains("source started with the processor");
        await().atMost(DEADLINE).until(() -> status(record) == OutboxRecordStatus.COMPLETED);

        assertThat(node.stop()).as("drained in time").isTrue();

        assertThat(steps).endsWith("source closed");
        assertThat(cluster.findAll()).extracting(PartitionState::owner).containsOnlyNulls();
        assertThat(cluster.findLive(Duration.ofHours(1))).as("the instance left the table").isEmpty();
        assertThat(node.isRunning()).isFalse();
    }

    @Test
    void stoppingDrainsTheRecordsInFlightBeforeReleasingTheirPartitions() throws Exception {
        CountDownLatch handlerStarted = new CountDownLatch(1);
        CountDownLatch handlerMayFinish = new CountDownLatch(1);
        OutboxNode node = node(OutboxProcessor.builder().handler(record -> {
            handlerStarted.countDown();
            assertThat(handlerMayFinish.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        }));
        OutboxRecord record = save("order-2");
        node.start();
        assertThat(handlerStarted.await(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();

        CompletableFuture<Boolean> stopped = CompletableFuture.supplyAsync(node::stop);

        await().atMost(DEADLINE).until(() -> cluster.findLive(Duration.ofHours(1)).stream()
                .anyMatch(instance -> instance.status() == InstanceStatus.SHUTTING_DOWN));
        assertThat(steps).as("no wake-ups once stopping").contains("source closed");
        assertThat(ownedInTable()).as("held while the handler runs").isEqualTo(256);
        assertThat(stopped).isNotDone();

        handlerMayFinish.countDown();

        assertThat(stopped.get(DEADLINE.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(status(record)).as("its outcome stored under its fence").isEqualTo(OutboxRecordStatus.COMPLETED);
        assertThat(ownedInTable()).as("released after the drain").isZero();
    }

    @Test
    void withoutAClusterTheNodeOwnsEveryPartition() {
        InMemoryRecordStore single = new InMemoryRecordStore();
        OutboxNode node = OutboxNode.builder().processor(OutboxProcessor.builder().recordStore(single)
                .handler(record -> steps.add("handled " + record.getAggregateId()))).build();
        nodes.add(node);
        single.save(OutboxRecord.builder().aggregateId("anywhere").eventType("E").payload("{}")
                .build(databaseClock));

        assertThat(node.coordinator()).isEmpty();
        assertThat(node.purger()).isEmpty();
        assertThat(node.processor().processDueRecords()).isEqualTo(1);
        assertThat(steps).containsExactly("handled anywhere");
    }

    @Test
    void localWakeUpsGoNowhereBeforeTheNodeStartsThemAndToTheProcessorAfter() {
        LocalWakeUps local = new LocalWakeUps();
        List<String> woken = new CopyOnWriteArrayList<>();
        WakeUpSource.Target target = new WakeUpSource.Target() {
            @Override
            public void wakeUp() {
                woken.add("all");
            }

            @Override
            public void wakeUpFor(Collection<Integer> partitions) {
                woken.add("partitions " + partitions);
            }
        };

        local.recordsCommitted(List.of(1));
        local.start(target);
        local.recordsCommitted(List.of(2, 3));
        local.recordsDue();
        local.close();
        local.recordsDue();

        assertThat(woken).containsExactly("partitions [2, 3]", "all");
    }

    /** Notes when the node starts and closes it. */
    private final class RecordingSource implements WakeUpSource {
        @Override
        public void start(Target target) {
            steps.add(target instanceof OutboxProcessor ? "source started with the processor" : "source started");
        }

        @Override
        public void close() {
            steps.add("source closed");
        }
    }
}
