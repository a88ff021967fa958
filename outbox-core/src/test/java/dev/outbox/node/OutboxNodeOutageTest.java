package dev.outbox.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionStore;
import dev.outbox.testing.ForwardingRecordStore;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import dev.outbox.testkit.DatabaseHang;
import dev.outbox.testkit.LogLines;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 29: a node whose database stops answering. The hang lasts until the test ends it, so a stop that returns while
 * it lasts never waited on the database, and a line logged while it lasts was logged without an answer.
 */
class OutboxNodeOutageTest {

    /** Far beyond any bound under test, far below the hang (which lasts until the test ends it). */
    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final MutableClock clock = new MutableClock(Instant.parse("2026-01-01T00:00:00Z"));
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final DatabaseHang hang = new DatabaseHang();
    private final LogLines coordinatorLog = LogLines.of(ClusterCoordinator.class);
    private final LogLines pollLog = LogLines.of("dev.outbox.processing.PollLoop");
    private @Nullable OutboxNode node;

    @AfterEach
    void endTheHang() {
        hang.end();
        if (node != null) {
            node.close();
        }
        coordinatorLog.close();
        pollLog.close();
    }

    @Test
    void aStopWhileTheDatabaseHangsReturnsWithinTheHandOverTimeoutAndSaysWhatItCouldNotRelease() throws Exception {
        Object hanging = hang.wrap(cluster, InstanceStore.class, PartitionStore.class);
        node = OutboxNode.builder()
                .processor(OutboxProcessor.builder().recordStore(new InMemoryRecordStore(cluster)).clock(clock)
                        .handler(record -> { })
                        .options(ProcessingOptions.defaults().withPollInterval(Duration.ofMillis(100))
                                .withShutdownTimeout(Duration.ofSeconds(1))))
                .cluster(ClusterCoordinator.builder().instanceStore((InstanceStore) hanging)
                        .partitionStore((PartitionStore) hanging).instanceId("node-1")
                        .handOverTimeout(Duration.ofSeconds(1)))
                .build();
        node.start();
        ClusterCoordinator coordinator = node.coordinator().orElseThrow();
        await().atMost(PATIENCE).until(() -> coordinator.ownedPartitions().size() == 256);

        hang.begin();
        CompletableFuture<Boolean> stop = CompletableFuture.supplyAsync(node::stop);

        assertThat(stop.get(PATIENCE.toSeconds(), TimeUnit.SECONDS)).as("stop returned while the hang lasts")
                .isNotNull();
        assertThat(hang.blockedCalls()).as("the database steps are still blocked").isPositive();
        assertThat(coordinatorLog.lines()).anySatisfy(line -> assertThat(line)
                .startsWith("WARN Outbox instance node-1 could not release 256 partition(s): the database did not "
                        + "answer within PT1S (outbox.instance.hand-over-timeout-seconds); other instances take "
                        + "them over after the stale timeout"));
        assertThat(coordinatorLog.lines()).noneMatch(line -> line.contains("left the cluster"));
        assertThat(node.isRunning()).isFalse();
    }

    @Test
    void aStoreThatIsNotAskedIsNotReportedToAnswerAgain() {
        InMemoryRecordStore records = new InMemoryRecordStore();
        AtomicReference<RuntimeException> findDueFails = new AtomicReference<>(
                new IllegalStateException("connection refused"));
        ForwardingRecordStore store = new ForwardingRecordStore(records) {
            @Override
            public FetchedRows findDue(DueRecordsQuery query) {
                RuntimeException failure = findDueFails.get();
                if (failure != null) {
                    throw failure;
                }
                return super.findDue(query);
            }
        };
        AtomicReference<OwnedPartitions> owned = new AtomicReference<>(OwnedPartitions.all());
        AtomicInteger asked = new AtomicInteger();
        PartitionOwnership ownership = () -> {
            asked.incrementAndGet();
            return owned.get();
        };
        OutboxProcessor processor = OutboxProcessor.builder().recordStore(store).clock(clock).handler(record -> { })
                .ownership(ownership)
                .options(ProcessingOptions.defaults().withPollInterval(Duration.ofMillis(50))).build();
        try {
            processor.start();
            await().atMost(PATIENCE).until(() -> pollLog.lines().stream()
                    .anyMatch(line -> line.contains("fetching due records failed")));

            owned.set(OwnedPartitions.none()); // the lease is lost while the store still fails
            int before = asked.get();
            await().atMost(PATIENCE).until(() -> asked.get() >= before + 5);
            assertThat(pollLog.lines()).noneMatch(line -> line.contains("answers again"));

            owned.set(OwnedPartitions.all()); // control: once the store does answer, it is said
            findDueFails.set(null);
            await().atMost(PATIENCE).until(() -> pollLog.lines().stream()
                    .anyMatch(line -> line.startsWith("INFO Outbox processor: the record store answers again")));
        } finally {
            processor.close();
        }
    }
}
