package dev.outbox.monitoring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.PartitionBacklog;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.testing.AggregateIds;
import dev.outbox.testing.CountingRecordStatistics;
import dev.outbox.testing.InMemoryClusterStore;
import dev.outbox.testing.InMemoryRecordStore;
import dev.outbox.testing.MutableClock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class OutboxMonitorTest {

    private static final Duration REFRESH = Duration.ofSeconds(10);
    private static final Duration STALE = Duration.ofSeconds(10);

    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore records = new InMemoryRecordStore();
    private final InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
    private final CountingRecordStatistics countingStatistics = new CountingRecordStatistics(records);

    @Test
    void aSnapshotIsReusedForTheRefreshIntervalThenTakenAgain() {
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(countingStatistics).clock(clock)
                .refreshInterval(REFRESH).build();
        save("order-1");

        OutboxSnapshot first = monitor.snapshot();
        clock.advance(REFRESH.minusMillis(1));
        assertThat(monitor.snapshot()).isSameAs(first);
        assertThat(countingStatistics.queries()).as("one query per family").isEqualTo(2);

        save("order-2");
        clock.advance(Duration.ofMillis(1));
        OutboxSnapshot second = monitor.snapshot();
        assertThat(countingStatistics.queries()).isEqualTo(4);
        assertThat(second.recordCount(OutboxRecordStatus.NEW)).isEqualTo(2);
        assertThat(first.recordCount(OutboxRecordStatus.NEW)).as("snapshots are immutable").isEqualTo(1);
    }

    /** Counting COMPLETED reads the whole table: the monitor asks for the other statuses alone unless told to. */
    @Test
    void theCompletedRecordsAreCountedOnlyWhenAsked() {
        save("order-1");
        records.markCompleted(Delivery.unfenced(save("order-2")), clock.instant());
        RecordStatistics withoutWholeTableReads = new RecordStatistics() {
            @Override
            public Map<OutboxRecordStatus, Long> countByStatus() {
                throw new AssertionError("a count of every status, COMPLETED too");
            }

            @Override
            public Map<String, Long> countByStoredStatusExceptCompleted() {
                return Map.of("NEW", 1L, "new", 2L);
            }

            @Override
            public List<PartitionBacklog> pendingByPartitionAndHandler() {
                return records.pendingByPartitionAndHandler();
            }
        };

        OutboxMonitor byDefault = OutboxMonitor.builder().statistics(withoutWholeTableReads).clock(clock).build();
        OutboxSnapshot snapshot = byDefault.snapshot();
        assertThat(byDefault.countsCompletedRecords()).isFalse();
        assertThat(snapshot.completedCounted()).isFalse();
        assertThat(snapshot.recordCounts()).containsOnlyKeys(OutboxRecordStatus.NEW, OutboxRecordStatus.FAILED,
                OutboxRecordStatus.SKIPPED).containsEntry(OutboxRecordStatus.NEW, 1L);
        assertThat(snapshot.unknownStatusCounts()).containsExactly(Map.entry("new", 2L));
        assertThatThrownBy(() -> snapshot.recordCount(OutboxRecordStatus.COMPLETED))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("outbox.metrics.count-completed-records=true");

        OutboxSnapshot counted = OutboxMonitor.builder().statistics(records).countCompletedRecords(true).clock(clock)
                .build().snapshot();
        assertThat(counted.completedCounted()).isTrue();
        assertThat(counted.recordCount(OutboxRecordStatus.COMPLETED)).isEqualTo(1);
        assertThat(counted.recordCount(OutboxRecordStatus.NEW)).isEqualTo(1);
    }

    @Test
    void aFailedRefreshIsNotRetriedBeforeTheIntervalIsOver() {
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(countingStatistics).clock(clock)
                .refreshInterval(REFRESH).build();
        countingStatistics.failWith(new IllegalStateException("connection refused"));

        assertThatThrownBy(monitor::snapshot).hasMessage("connection refused");
        assertThatThrownBy(monitor::snapshot).hasMessage("connection refused");
        assertThat(countingStatistics.queries()).isEqualTo(1);

        countingStatistics.failWith(null);
        clock.advance(REFRESH);
        assertThat(monitor.snapshot().recordCount(OutboxRecordStatus.NEW)).isZero();
    }

    @Test
    void figuresOfThisInstanceCoverItsOwnPartitionsOnly() {
        String inPartition3 = AggregateIds.inPartition(3, "agg");
        String inPartition9 = AggregateIds.inPartition(9, "agg");
        String inPartition100 = AggregateIds.inPartition(100, "agg");
        OutboxRecord oldest = save(inPartition100);
        clock.advance(Duration.ofSeconds(30));
        save(inPartition3);
        save(inPartition3);
        save(inPartition9);
        OutboxRecord done = save(inPartition9);
        records.markCompleted(Delivery.unfenced(done), clock.instant());
        clock.advance(Duration.ofSeconds(12));

        OutboxSnapshot snapshot = OutboxMonitor.builder().statistics(records).clock(clock)
                .ownership(() -> OwnedPartitions.of(3, 9, 50)).build().snapshot();

        assertThat(snapshot.assignedPartitionCount()).isEqualTo(3);
        assertThat(snapshot.pendingInOwnedPartitions()).isEqualTo(3);
        assertThat(snapshot.maxPendingInAnOwnedPartition()).isEqualTo(2);
        assertThat(snapshot.averagePendingPerOwnedPartition()).isEqualTo(1.0);
        assertThat(snapshot.pendingIn(100)).isEqualTo(1);
        assertThat(snapshot.oldestPending()).contains(oldest.getCreatedAt());
        assertThat(snapshot.oldestPendingAge()).isEqualTo(Duration.ofSeconds(42));
        assertThat(snapshot.recordCounts()).containsEntry(OutboxRecordStatus.NEW, 4L)
                .containsEntry(OutboxRecordStatus.FAILED, 0L);
        assertThat(snapshot.unassignedPartitionCount()).as("no cluster: nothing is unassigned").isZero();
    }

    @Test
    void clusterFiguresComeFromTheInstanceAndPartitionTables() {
        cluster.register("node-a", "host", 0);
        cluster.register("node-b", "host", 0);
        cluster.register("node-gone", "host", 0);
        for (int p = 0; p < 100; p++) {
            cluster.claim(p, 0, "node-a", STALE);
        }
        for (int p = 100; p < 200; p++) {
            cluster.claim(p, 0, "node-b", STALE);
        }
        for (int p = 200; p < 210; p++) {
            cluster.claim(p, 0, "node-gone", STALE);
        }
        clock.advance(STALE.plusSeconds(1));
        cluster.heartbeat("node-a");
        cluster.heartbeat("node-b");
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(records).instances(cluster, STALE)
                .partitions(cluster).clock(clock).build();

        OutboxSnapshot snapshot = monitor.snapshot();

        assertThat(snapshot.liveInstances()).hasSize(2);
        assertThat(snapshot.clusterPartitionCount()).isEqualTo(256);
        assertThat(snapshot.averagePartitionsPerInstance()).isEqualTo(128.0);
        assertThat(snapshot.unassignedPartitionCount()).as("46 never claimed, 10 owned by a dead instance")
                .isEqualTo(56);
        assertThat(snapshot.partitionsByOwner()).containsOnlyKeys("node-a", "node-b", "node-gone");
        assertThat(snapshot.partitionsByOwner().get("node-a")).hasSize(100).contains(0, 99);
    }

    @Test
    void recordsWhosePartitionsOwnerLacksTheirHandlerAreDeferredAndUnhandledWhenNoLiveInstanceHasIt() {
        cluster.register("v1", "host", 0, new InstanceCapabilities(Set.of("mailer"), Set.of("Test"), false, "1.0"));
        cluster.register("v2", "host", 0, new InstanceCapabilities(Set.of("mailer", "ledger"), Set.of("Test"),
                false, "2.0"));
        cluster.register("old", "host", 0); // a version from before instances said what they process
        cluster.claim(1, 0, "v1", STALE);
        cluster.claim(2, 0, "v2", STALE);
        cluster.claim(3, 0, "old", STALE);
        OutboxRecord oldestForLedger = save(AggregateIds.inPartition(1, "a"), "ledger");
        clock.advance(Duration.ofSeconds(3));
        save(AggregateIds.inPartition(1, "b"), "ledger");
        save(AggregateIds.inPartition(1, "c"), "mailer");
        save(AggregateIds.inPartition(1, "d"), "audit");
        save(AggregateIds.inPartition(1, "e"), null);
        save(AggregateIds.inPartition(2, "f"), "ledger");
        save(AggregateIds.inPartition(3, "g"), "audit");
        save(AggregateIds.inPartition(4, "h"), "audit"); // no owner: unassigned, not deferred
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(records).instances(cluster, STALE)
                .partitions(cluster).clock(clock).build();

        OutboxSnapshot snapshot = monitor.snapshot();

        assertThat(snapshot.deferredRecords()).containsExactly(
                new DeferredRecords(null, 1, oldestForLedger.getCreatedAt().plusSeconds(3), List.of("old")),
                new DeferredRecords("audit", 1, oldestForLedger.getCreatedAt().plusSeconds(3), List.of("old")),
                new DeferredRecords("ledger", 2, oldestForLedger.getCreatedAt(), List.of("old", "v2")));
        assertThat(snapshot.deferredRecordCount()).isEqualTo(4);
        assertThat(snapshot.unhandledRecordCount()).as("'old' may take them all").isZero();

        cluster.remove("old");
        clock.advance(REFRESH);
        cluster.heartbeat("v1");
        cluster.heartbeat("v2");
        OutboxSnapshot withoutOld = monitor.snapshot();
        assertThat(withoutOld.deferredRecords()).extracting(DeferredRecords::handlerId, DeferredRecords::records,
                DeferredRecords::unhandled).containsExactly(
                        tuple(null, 1L, true), tuple("audit", 1L, true), tuple("ledger", 2L, false));
        assertThat(withoutOld.unhandledRecordCount()).isEqualTo(2);
    }

    @Test
    void outsideAClusterThisInstancesCapabilitiesTellTheDeferredRecords() {
        save("a", "mailer");
        save("b", "ledger");
        save("c", "ledger");
        OutboxMonitor.Builder builder = OutboxMonitor.builder().statistics(records).clock(clock);

        assertThat(builder.build().snapshot().deferredRecordCount()).as("unknown capabilities: nothing deferred")
                .isZero();
        OutboxSnapshot snapshot = builder.capabilities(new InstanceCapabilities(Set.of("mailer"), Set.of(), false,
                null)).build().snapshot();
        assertThat(snapshot.deferredRecords()).extracting(DeferredRecords::handlerId, DeferredRecords::records)
                .containsExactly(tuple("ledger", 2L));
        assertThat(snapshot.unhandledRecordCount()).isEqualTo(2);
    }

    @Test
    void theRefreshIntervalMustBePositive() {
        assertThatThrownBy(() -> OutboxMonitor.builder().refreshInterval(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("refreshInterval must be positive but was PT0S");
    }

    private OutboxRecord save(String aggregateId) {
        return save(aggregateId, null);
    }

    private OutboxRecord save(String aggregateId, @Nullable String handlerId) {
        OutboxRecord record = OutboxRecord.builder().aggregateId(aggregateId).eventType("Test").payload("{}")
                .handlerId(handlerId).build(clock);
        records.save(record);
        return records.findById(record.getId()).orElseThrow();
    }
}
