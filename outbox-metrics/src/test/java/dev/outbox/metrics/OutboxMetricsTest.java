package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.monitoring.OutboxMonitor;
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
import dev.outbox.testkit.DatabaseHang;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

class OutboxMetricsTest {

    private static final Duration PATIENCE = Duration.ofSeconds(60);

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final MutableClock clock = MutableClock.startingNow();
    private final InMemoryRecordStore records = new InMemoryRecordStore();
    private final CountingRecordStatistics statistics = new CountingRecordStatistics(records);

    @Test
    void theSeedsGaugesReportTheSnapshot() {
        String inPartition5 = AggregateIds.inPartition(5, "agg");
        save(inPartition5);
        save(inPartition5);
        save(AggregateIds.inPartition(6, "agg"));
        OutboxRecord done = save(AggregateIds.inPartition(200, "agg"));
        records.markCompleted(Delivery.unfenced(done), clock.instant());
        clock.advance(Duration.ofSeconds(3));
        bind(OwnedPartitions.of(5, 6, 7, 8), true);

        assertThat(gauge("outbox.records.count", "status", "new")).isEqualTo(3.0);
        assertThat(registry.find("outbox.records.count").tag("status", "completed").gauge())
                .as("COMPLETED is counted only when asked").isNull();
        assertThat(gauge("outbox.records.count", "status", "failed")).isZero();
        assertThat(gauge("outbox.partitions.assigned.count")).isEqualTo(4.0);
        assertThat(gauge("outbox.partitions.pending.records.total")).isEqualTo(3.0);
        assertThat(gauge("outbox.partitions.pending.records.max")).isEqualTo(2.0);
        assertThat(gauge("outbox.partitions.pending.records.avg")).isEqualTo(0.75);
        assertThat(gauge("outbox.cluster.partitions.total")).isEqualTo(256.0);
        assertThat(gauge("outbox.cluster.partitions.unassigned")).isZero();
        assertThat(gauge("outbox.records.oldest.pending.age")).isEqualTo(3.0);
        assertThat(gauge("outbox.partition.pending", "partition", "5")).isEqualTo(2.0);
        assertThat(registry.find("outbox.partition.pending").gauges()).hasSize(256);
    }

    /** A read of the whole table each refresh, so only when asked for; the other statuses' gauges stay as they are. */
    @Test
    void theCompletedRecordsAreCountedWhenAsked() {
        save(AggregateIds.inPartition(5, "agg"));
        OutboxRecord done = save(AggregateIds.inPartition(6, "agg"));
        records.markCompleted(Delivery.unfenced(done), clock.instant());
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(statistics).countCompletedRecords(true).clock(clock)
                .build();
        new OutboxMetrics(monitor, false).bindTo(registry);

        assertThat(gauge("outbox.records.count", "status", "completed")).isEqualTo(1.0);
        assertThat(gauge("outbox.records.count", "status", "new")).isEqualTo(1.0);
        assertThat(registry.find("outbox.records.count").gauges()).hasSize(OutboxRecordStatus.values().length);
    }

    /** Found in CI: the monitor was only weakly held by the gauges, and a collection made every gauge read NaN. */
    @Test
    void theGaugesKeepTheirMonitorWhenNothingElseHoldsIt() {
        save(AggregateIds.inPartition(1, "agg"));
        bind(OwnedPartitions.all(), false);

        for (int i = 0; i < 3; i++) {
            System.gc();
        }

        assertThat(gauge("outbox.records.count", "status", "new")).isEqualTo(1.0);
    }

    @Test
    void aScrapeOfEveryGaugeCostsOneQueryPerFamilyPerRefreshInterval() {
        save(AggregateIds.inPartition(1, "agg"));
        bind(OwnedPartitions.all(), true);

        scrape();
        scrape();
        assertThat(statistics.queries()).as("status counts and partition backlog, once").isEqualTo(2);

        clock.advance(OutboxMonitor.DEFAULT_REFRESH_INTERVAL);
        scrape();
        assertThat(statistics.queries()).isEqualTo(4);
    }

    @Test
    void theDeferralGaugesCountRecordsWaitingForAHandlerAndThoseNoLiveInstanceHas() {
        InMemoryClusterStore cluster = new InMemoryClusterStore(clock);
        cluster.register("v1", "host", 0, new InstanceCapabilities(Set.of("ledger"), Set.of(), false, "1"));
        cluster.register("v2", "host", 0, new InstanceCapabilities(Set.of("ledger", "mailer"), Set.of(), false,
                "2"));
        cluster.claim(5, 0, "v1", Duration.ofSeconds(10));
        cluster.claim(6, 0, "v2", Duration.ofSeconds(10));
        save(AggregateIds.inPartition(5, "a"), "mailer");
        save(AggregateIds.inPartition(5, "b"), "mailer");
        save(AggregateIds.inPartition(5, "c"), "audit");
        save(AggregateIds.inPartition(5, "d"), "ledger");
        save(AggregateIds.inPartition(6, "e"), "mailer");
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(statistics).instances(cluster,
                Duration.ofSeconds(10)).partitions(cluster).clock(clock).build();
        new OutboxMetrics(monitor, false).bindTo(registry);

        assertThat(gauge("outbox.records.deferred")).as("v1 lacks mailer and audit").isEqualTo(3.0);
        assertThat(gauge("outbox.records.deferred.unhandled")).as("nobody has audit").isEqualTo(1.0);
    }

    @Test
    void everyGaugeCarriesTheTagsGiven() {
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(statistics).ownership(OwnedPartitions::all)
                .clock(clock).build();
        new OutboxMetrics(monitor, true, Tags.of("outbox", "orders")).bindTo(registry);

        assertThat(registry.getMeters()).hasSizeGreaterThan(256)
                .allSatisfy(meter -> assertThat(meter.getId().getTag("outbox")).isEqualTo("orders"));
    }

    @Test
    void thePerPartitionSeriesCanBeSwitchedOff() {
        bind(OwnedPartitions.all(), false);

        assertThat(registry.find("outbox.partition.pending").gauges()).isEmpty();
        assertThat(registry.find("outbox.records.count").gauges()).as("every status but COMPLETED")
                .hasSize(OutboxRecordStatus.values().length - 1);
    }

    @Test
    void gaugesReportNaNWhileTheStatisticsCannotBeRead() {
        bind(OwnedPartitions.all(), false);
        statistics.failWith(new IllegalStateException("database down"));

        assertThat(gauge("outbox.records.count", "status", "new")).isNaN();
        assertThat(gauge("outbox.partitions.pending.records.total")).isNaN();
    }

    /** Issue 29: rows of a status the library does not know (written by SQL) are counted apart, not left out. */
    @Test
    void rowsOfAStatusTheOutboxDoesNotKnowAreCountedApart() {
        RecordStatistics withUnknownStatuses = new RecordStatistics() {
            @Override
            public Map<OutboxRecordStatus, Long> countByStatus() {
                return Map.of(OutboxRecordStatus.NEW, 3L);
            }

            @Override
            public Map<String, Long> countByStoredStatus() {
                return Map.of("NEW", 3L, "new", 2L, "failed ", 1L);
            }

            @Override
            public List<PartitionBacklog> pendingByPartitionAndHandler() {
                return List.of();
            }
        };
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(withUnknownStatuses).clock(clock).build();
        new OutboxMetrics(monitor, false).bindTo(registry);

        assertThat(gauge("outbox.records.unknown_status")).isEqualTo(3.0);
        assertThat(gauge("outbox.records.count", "status", "new")).isEqualTo(3.0);
        assertThat(monitor.latest(Duration.ZERO).value().unknownStatusCounts())
                .containsExactly(Map.entry("failed ", 1L), Map.entry("new", 2L));
    }

    /**
     * Issue 29: a Prometheus scrape while the outbox tables hang answers at once with the last figures, then NaN once
     * they have not answered for the stale timeout (when health turns DOWN), and the figures come back with the tables.
     * The hang lasts until the test ends it, so an answer at all proves the scrape did not wait on the database.
     */
    @Test
    void aScrapeWhileTheTablesHangAnswersAtOnceWithTheLastFigures() throws Exception {
        DatabaseHang hang = new DatabaseHang();
        try {
            save(AggregateIds.inPartition(1, "agg"));
            OutboxMonitor monitor = OutboxMonitor.builder().statistics(hang.wrap(statistics, RecordStatistics.class))
                    .ownership(OwnedPartitions::all).clock(clock).build();
            new OutboxMetrics(monitor, true).bindTo(registry);
            assertThat(gauge("outbox.records.count", "status", "new")).isEqualTo(1.0);

            hang.begin();
            save(AggregateIds.inPartition(2, "agg"));
            clock.advance(OutboxMonitor.DEFAULT_REFRESH_INTERVAL); // the snapshot is due for a refresh, which hangs
            Duration scrape = timedScrape();
            assertThat(scrape).as("%s gauges, waiting at most once", registry.getMeters().size())
                    .isLessThan(OutboxMetrics.WAIT.multipliedBy(4));
            assertThat(gauge("outbox.records.count", "status", "new")).as("the last figures").isEqualTo(1.0);
            assertThat(gauge("outbox.partition.pending", "partition", "1")).isEqualTo(1.0);
            assertThat(timedScrape()).as("later scrapes do not wait").isLessThan(OutboxMetrics.WAIT);

            clock.advance(monitor.staleTimeout());
            assertThat(timedScrape()).isLessThan(OutboxMetrics.WAIT);
            assertThat(gauge("outbox.records.count", "status", "new")).as("unanswered for the stale timeout")
                    .isNaN();

            hang.end();
            await().atMost(PATIENCE).until(() -> gauge("outbox.records.count", "status", "new") == 2.0);
        } finally {
            hang.end();
        }
    }

    /** How long a scrape of every gauge took; it must end while the hang lasts. */
    private Duration timedScrape() throws Exception {
        long start = System.nanoTime();
        CompletableFuture.runAsync(this::scrape).get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
        return Duration.ofNanos(System.nanoTime() - start);
    }

    private void bind(OwnedPartitions owned, boolean perPartition) {
        OutboxMonitor monitor = OutboxMonitor.builder().statistics(statistics).ownership(() -> owned).clock(clock)
                .build();
        new OutboxMetrics(monitor, perPartition).bindTo(registry);
    }

    private void scrape() {
        for (Meter meter : registry.getMeters()) {
            meter.measure().forEach(measurement -> measurement.getValue());
        }
    }

    private double gauge(String name, String... tags) {
        Gauge gauge = registry.get(name).tags(tags).gauge();
        return gauge.value();
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
