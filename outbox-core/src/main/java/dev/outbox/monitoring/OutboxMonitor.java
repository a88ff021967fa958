package dev.outbox.monitoring;

import dev.outbox.internal.Checks;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStatistics;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes {@link OutboxSnapshot}s and keeps the last one for {@code refreshInterval}, so that metrics scrapes, health
 * checks and the actuator endpoint together cost the database at most one grouped query per family per interval:
 * records by status (all but COMPLETED unless {@link Builder#countCompletedRecords(boolean) asked}), NEW records by
 * partition and handler, and, in a cluster, the live instances and the partition table.
 *
 * <p>A refresh that fails is not retried before the interval is over either; until then callers get the same error,
 * so a database outage is not made worse by monitoring.
 *
 * <p>Health checks and endpoints use {@link #latest(Duration)}, which never waits longer than they say: the refresh
 * runs on a thread of its own and they get the last snapshot with its age.
 */
public final class OutboxMonitor {

    private static final Logger log = LoggerFactory.getLogger(OutboxMonitor.class);

    /** Default of {@link Builder#refreshInterval(Duration)}. */
    public static final Duration DEFAULT_REFRESH_INTERVAL = Duration.ofSeconds(10);

    private final RecordStatistics statistics;
    private final @Nullable InstanceStore instances;
    private final @Nullable PartitionStore partitions;
    private final PartitionOwnership ownership;
    private final Duration staleTimeout;
    private final Duration refreshInterval;
    private final Clock clock;
    private final @Nullable InstanceCapabilities capabilities;
    private final boolean countCompletedRecords;

    private @Nullable OutboxSnapshot last;
    private @Nullable RuntimeException lastFailure;
    private @Nullable Instant lastAttempt;
    private final LatestReading<OutboxSnapshot> latest;
    /** The unknown statuses seen at the last refresh, logged when they appeared. */
    private Set<String> reportedUnknownStatuses = Set.of();

    private OutboxMonitor(Builder builder) {
        this.statistics = Objects.requireNonNull(builder.statistics, "OutboxMonitor.builder(): statistics is required");
        this.instances = builder.instances;
        this.partitions = builder.partitions;
        this.ownership = builder.ownership;
        this.staleTimeout = builder.staleTimeout;
        this.refreshInterval = builder.refreshInterval;
        this.clock = builder.clock;
        this.capabilities = builder.capabilities;
        this.countCompletedRecords = builder.countCompletedRecords;
        this.latest = new LatestReading<>("outbox-monitor", this::refresh, refreshInterval, clock);
    }

    public static Builder builder() {
        return new Builder();
    }

    public Duration refreshInterval() {
        return refreshInterval;
    }

    /**
     * Whether snapshots count the COMPLETED records ({@link Builder#countCompletedRecords(boolean)}); when not,
     * {@link OutboxSnapshot#recordCounts()} has no COMPLETED entry.
     */
    public boolean countsCompletedRecords() {
        return countCompletedRecords;
    }

    /** After how long without an answer the outbox tables count as unreachable: the cluster's stale timeout. */
    public Duration staleTimeout() {
        return staleTimeout;
    }

    /**
     * The last snapshot, refreshed in the background once older than the refresh interval; waits at most {@code wait}
     * for a refresh in flight, so that no caller waits on a database connection for longer. Never throws.
     */
    public LatestReading.Reading<OutboxSnapshot> latest(Duration wait) {
        return latest.get(wait);
    }

    /** What {@link #latest(Duration)} knows now, without starting a refresh or waiting for one. */
    public LatestReading.Reading<OutboxSnapshot> lastReading() {
        return latest.current();
    }

    /**
     * The last snapshot if it is younger than the refresh interval, else a new one.
     *
     * @throws RuntimeException what the stores threw, for the rest of the interval after a failed refresh
     */
    public synchronized OutboxSnapshot snapshot() {
        Instant now = clock.instant();
        if (lastAttempt != null && Duration.between(lastAttempt, now).compareTo(refreshInterval) < 0) {
            if (lastFailure != null) {
                throw lastFailure;
            }
            if (last != null) {
                return last;
            }
        }
        return refresh();
    }

    /** Takes a new snapshot now, whatever the age of the last one. */
    public synchronized OutboxSnapshot refresh() {
        Instant now = clock.instant();
        lastAttempt = now;
        try {
            OwnedPartitions owned = ownership.ownedPartitions();
            List<InstanceState> live = instances == null ? List.of() : instances.findLive(staleTimeout);
            List<PartitionState> table = partitions == null ? List.of() : partitions.findAll();
            Map<String, Long> statusCounts = countCompletedRecords ? statistics.countByStoredStatus()
                    : statistics.countByStoredStatusExceptCompleted();
            OutboxSnapshot snapshot = new OutboxSnapshot(now, statusCounts, countCompletedRecords,
                    statistics.pendingByPartitionAndHandler(), owned, live, table, capabilities);
            if (lastFailure != null) {
                log.info("Outbox monitoring: statistics can be read again");
            }
            reportUnknownStatuses(snapshot);
            last = snapshot;
            lastFailure = null;
            latest.answered(snapshot, now);
            return snapshot;
        } catch (RuntimeException e) {
            if (lastFailure == null) {
                log.warn("Outbox monitoring: reading statistics failed; trying again in {}", refreshInterval, e);
            }
            lastFailure = e;
            latest.failed(e);
            throw e;
        }
    }

    /** Logs rows of a status the library does not know once, when such a status appears, not at every refresh. */
    private void reportUnknownStatuses(OutboxSnapshot snapshot) {
        Set<String> unknown = snapshot.unknownStatusCounts().keySet();
        if (!reportedUnknownStatuses.containsAll(unknown)) {
            log.warn("Outbox monitoring: rows of the record table have a status the library does not know (written by "
                    + "SQL?), by status as stored: {}. No fetch reads them as due; the processor marks them FAILED as "
                    + "unreadable rows (outbox.records.poison) once it looks at their partition, within a minute",
                    snapshot.unknownStatusCounts());
        }
        reportedUnknownStatuses = Set.copyOf(unknown);
    }

    /** Assembles an {@link OutboxMonitor}; only the statistics are required. */
    public static final class Builder {
        private @Nullable RecordStatistics statistics;
        private @Nullable InstanceStore instances;
        private @Nullable PartitionStore partitions;
        private PartitionOwnership ownership = PartitionOwnership.allPartitions();
        private Duration staleTimeout = Duration.ofSeconds(10);
        private Duration refreshInterval = DEFAULT_REFRESH_INTERVAL;
        private Clock clock = Clock.systemUTC();
        private @Nullable InstanceCapabilities capabilities;
        private boolean countCompletedRecords;

        private Builder() {
        }

        /**
         * Whether each refresh counts the COMPLETED records too (default false). Handled records stay COMPLETED until
         * a purge, so on most stores that count reads the whole record table at every refresh (on PostgreSQL with
         * 1,000,000 records: 114 to 323 ms); the other statuses are counted through their indexes.
         */
        public Builder countCompletedRecords(boolean countCompletedRecords) {
            this.countCompletedRecords = countCompletedRecords;
            return this;
        }

        /**
         * What this instance can process. Outside a cluster it tells which records are deferred; in one, the instance
         * table does. Default: unknown, and outside a cluster no record counts as deferred.
         */
        public Builder capabilities(InstanceCapabilities capabilities) {
            this.capabilities = Objects.requireNonNull(capabilities, "capabilities");
            return this;
        }

        public Builder statistics(RecordStatistics statistics) {
            this.statistics = Objects.requireNonNull(statistics, "statistics");
            return this;
        }

        /** The cluster's instance table, with the stale timeout that tells live instances. Default: no cluster. */
        public Builder instances(InstanceStore instances, Duration staleTimeout) {
            this.instances = Objects.requireNonNull(instances, "instances");
            this.staleTimeout = Objects.requireNonNull(staleTimeout, "staleTimeout");
            return this;
        }

        /** The cluster's partition table. Default: no cluster. */
        public Builder partitions(PartitionStore partitions) {
            this.partitions = Objects.requireNonNull(partitions, "partitions");
            return this;
        }

        /** Whose partitions count as this instance's. Default: all of them. */
        public Builder ownership(PartitionOwnership ownership) {
            this.ownership = Objects.requireNonNull(ownership, "ownership");
            return this;
        }

        /** How long a snapshot is reused (default 10 s); positive. */
        public Builder refreshInterval(Duration refreshInterval) {
            this.refreshInterval = Checks.positive("refreshInterval", refreshInterval);
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public OutboxMonitor build() {
            return new OutboxMonitor(this);
        }
    }
}
