package dev.outbox.metrics;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.partition.PartitionHasher;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.ToDoubleFunction;
import org.jspecify.annotations.Nullable;

/**
 * Gauges over {@link OutboxMonitor} snapshots: the record counts, partition and cluster figures of the seed's metric
 * names, plus what operators need to run the outbox. Every gauge reads the monitor's cached snapshot, so a scrape costs
 * the database at most one grouped query per family per refresh interval, however many gauges it reads. The snapshot
 * is refreshed in the background: a scrape waits at most {@link #WAIT} for it, and none while the outbox tables have
 * not answered the last refresh, so that a scrape during a database outage answers at once with the last figures.
 * A gauge reports NaN while there are none: before the first snapshot, after a refresh failed, and once the tables
 * have not answered for the monitor's stale timeout (when health turns DOWN).
 *
 * <ul>
 *   <li>{@code outbox.records.count{status=new|completed|failed}}</li>
 *   <li>{@code outbox.partitions.assigned.count}; {@code outbox.partitions.pending.records.total|max|avg} over
 *       them</li>
 *   <li>{@code outbox.cluster.instances.total}, {@code outbox.cluster.partitions.total},
 *       {@code outbox.cluster.partitions.avg_per_instance}, {@code outbox.cluster.partitions.unassigned}</li>
 *   <li>{@code outbox.records.oldest.pending.age} (seconds)</li>
 *   <li>{@code outbox.records.unknown_status}: rows of a status the library does not know</li>
 *   <li>{@code outbox.partition.pending{partition=0..255}}, optional: 256 series, for a heatmap</li>
 * </ul>
 */
public final class OutboxMetrics implements MeterBinder {

    /** How long a scrape waits for the snapshot refresh it starts, when the outbox tables answered the last one. */
    static final Duration WAIT = Duration.ofMillis(500);

    private final OutboxMonitor monitor;
    private final boolean perPartitionGauges;
    private final Tags tags;

    /**
     * @param perPartitionGauges whether to register the 256 {@code outbox.partition.pending} series
     */
    public OutboxMetrics(OutboxMonitor monitor, boolean perPartitionGauges) {
        this(monitor, perPartitionGauges, Tags.empty());
    }

    /**
     * @param perPartitionGauges whether to register the 256 {@code outbox.partition.pending} series
     * @param tags put on every gauge, such as the outbox's name when an application has several
     */
    public OutboxMetrics(OutboxMonitor monitor, boolean perPartitionGauges, Iterable<Tag> tags) {
        this.monitor = Objects.requireNonNull(monitor, "monitor");
        this.perPartitionGauges = perPartitionGauges;
        this.tags = Tags.of(Objects.requireNonNull(tags, "tags"));
    }

    @Override
    public void bindTo(MeterRegistry registry) {
        for (OutboxRecordStatus status : OutboxRecordStatus.values()) {
            // A series of its own only when counted: a gauge that always reads NaN would look like an outage.
            if (status != OutboxRecordStatus.COMPLETED || monitor.countsCompletedRecords()) {
                gauge("outbox.records.count", "Outbox records by status", s -> s.recordCount(status))
                        .tag("status", status.name().toLowerCase(Locale.ROOT)).register(registry);
            }
        }
        gauge("outbox.partitions.assigned.count", "Partitions this instance owns",
                OutboxSnapshot::assignedPartitionCount).register(registry);
        gauge("outbox.partitions.pending.records.total", "NEW records in the partitions this instance owns",
                OutboxSnapshot::pendingInOwnedPartitions).register(registry);
        gauge("outbox.partitions.pending.records.max", "Most NEW records in one partition this instance owns",
                OutboxSnapshot::maxPendingInAnOwnedPartition).register(registry);
        gauge("outbox.partitions.pending.records.avg", "NEW records per partition this instance owns",
                OutboxSnapshot::averagePendingPerOwnedPartition).register(registry);
        gauge("outbox.cluster.instances.total", "Live outbox instances",
                s -> s.liveInstances().size()).register(registry);
        gauge("outbox.cluster.partitions.total", "Partitions of the cluster (always 256)",
                OutboxSnapshot::clusterPartitionCount).register(registry);
        gauge("outbox.cluster.partitions.avg_per_instance", "Partitions per live instance",
                OutboxSnapshot::averagePartitionsPerInstance).register(registry);
        gauge("outbox.cluster.partitions.unassigned", "Partitions without a live owner",
                OutboxSnapshot::unassignedPartitionCount).register(registry);
        gauge("outbox.records.deferred", "NEW records waiting for an instance that has their handler (during a "
                + "rolling deploy, records of a newer version in partitions of an older one)",
                OutboxSnapshot::deferredRecordCount).register(registry);
        gauge("outbox.records.deferred.unhandled", "Deferred records whose handler no live instance has: a stuck "
                + "deploy or a removed handler", OutboxSnapshot::unhandledRecordCount).register(registry);
        gauge("outbox.records.unknown_status", "Rows whose status is none the outbox knows (written by SQL): no "
                + "fetch reads them as due; the processor fails them as poison rows", OutboxSnapshot::unknownStatusCount)
                .register(registry);
        gauge("outbox.records.oldest.pending.age", "Age of the oldest NEW record",
                s -> s.oldestPendingAge().toMillis() / 1000.0).baseUnit("seconds").register(registry);
        if (perPartitionGauges) {
            for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
                int p = partition;
                gauge("outbox.partition.pending", "NEW records per partition", s -> s.pendingIn(p))
                        .tag("partition", Integer.toString(p)).register(registry);
            }
        }
    }

    private Gauge.Builder<OutboxMonitor> gauge(String name, String description,
            ToDoubleFunction<OutboxSnapshot> value) {
        // Held strongly: Micrometer keeps a gauge's object weakly, and a monitor nothing else holds (an application
        // without Spring, say) would be collected and every gauge read NaN from then on.
        return Gauge.builder(name, monitor, m -> read(m, value)).description(description).tags(tags)
                .strongReference(true);
    }

    private static double read(OutboxMonitor monitor, ToDoubleFunction<OutboxSnapshot> value) {
        OutboxSnapshot snapshot = current(monitor);
        return snapshot == null ? Double.NaN : value.applyAsDouble(snapshot);
    }

    /**
     * The snapshot the gauges report, null when there is none to report (the monitor logged why). Only a gauge that
     * finds the last refresh answered waits for the one it may start: once one has waited in vain, the others of the
     * scrape, and later scrapes, answer at once rather than each waiting in turn.
     */
    private static @Nullable OutboxSnapshot current(OutboxMonitor monitor) {
        boolean answering = !monitor.lastReading().awaitingAnswer();
        LatestReading.Reading<OutboxSnapshot> reading = monitor.latest(answering ? WAIT : Duration.ZERO);
        if (reading.failure() != null || reading.unansweredFor().compareTo(monitor.staleTimeout()) >= 0) {
            return null;
        }
        return reading.value();
    }
}
