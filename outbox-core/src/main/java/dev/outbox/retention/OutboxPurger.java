package dev.outbox.retention;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.internal.Checks;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.spi.RecordPurge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes COMPLETED and SKIPPED records (and, when asked, FAILED ones) older than a retention, in batches of a
 * bounded size so no statement locks many rows. Each instance purges only the partitions it owns, so instances never
 * purge the same rows and the work spreads like the processing does.
 *
 * <p>Run it every {@link Builder#interval(Duration)} with {@link #start()}, or call {@link #purgeNow()}.
 */
public final class OutboxPurger implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxPurger.class);

    private final RecordPurge store;
    private final PartitionOwnership ownership;
    private final Clock clock;
    private final Duration retention;
    private final Duration interval;
    private final int batchSize;
    private final List<OutboxRecordStatus> statuses;
    private @Nullable ScheduledExecutorService thread;

    private OutboxPurger(Builder builder) {
        this.store = Objects.requireNonNull(builder.store, "OutboxPurger.builder(): store is required");
        this.ownership = builder.ownership;
        this.clock = builder.clock;
        this.retention = builder.retention;
        this.interval = builder.interval;
        this.batchSize = builder.batchSize;
        List<OutboxRecordStatus> purged = new ArrayList<>(List.of(OutboxRecordStatus.COMPLETED,
                OutboxRecordStatus.SKIPPED));
        if (builder.includeFailed) {
            purged.add(OutboxRecordStatus.FAILED);
        }
        this.statuses = List.copyOf(purged);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Purges every {@code interval}, the first time one interval from now. */
    public synchronized void start() {
        if (thread != null) {
            return;
        }
        ScheduledExecutorService executor = Executors.newSingleThreadScheduledExecutor(
                DaemonThreads.named("outbox-purge"));
        executor.scheduleWithFixedDelay(this::purgeSafely, interval.toMillis(), interval.toMillis(),
                TimeUnit.MILLISECONDS);
        thread = executor;
        log.info("Outbox purge: every {}, {} records older than {}, {} per statement", interval, statuses, retention,
                batchSize);
    }

    /** Stops purging: a purge under way ends after its current statement, which this waits for (up to 30 s). */
    @Override
    public synchronized void close() {
        if (thread != null) {
            thread.shutdownNow();
            try {
                if (!thread.awaitTermination(30, TimeUnit.SECONDS)) {
                    log.warn("Outbox purge: a statement still runs after 30 s; not waiting for it any longer");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            thread = null;
        }
    }

    /**
     * Deletes, batch after batch, the purgeable records of the owned partitions that are older than the retention.
     *
     * @return how many records it deleted
     */
    public long purgeNow() {
        OwnedPartitions owned = ownership.ownedPartitions();
        if (owned.isEmpty()) {
            return 0;
        }
        Instant cutoff = clock.instant().minus(retention);
        long total = 0;
        int statements = 0;
        for (OutboxRecordStatus status : statuses) {
            int deleted;
            do {
                deleted = store.purge(owned, status, cutoff, batchSize);
                total += deleted;
                statements++;
                if (statements % 100 == 0) {
                    log.info("Outbox purge: {} record(s) deleted so far", total);
                }
            } while (deleted >= batchSize && !Thread.currentThread().isInterrupted());
        }
        if (total > 0) {
            log.info("Outbox purge: deleted {} record(s) created before {} from {} partition(s) in {} statement(s)",
                    total, cutoff, owned.size(), statements);
        }
        return total;
    }

    private void purgeSafely() {
        try {
            purgeNow();
        } catch (RuntimeException e) {
            log.warn("Outbox purge failed; trying again in {}: {}", interval, e.toString());
        }
    }

    /** Assembles an {@link OutboxPurger}; the store is required. */
    public static final class Builder {
        /** Default retention of finished records. */
        public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
        /** Default pause between two purges. */
        public static final Duration DEFAULT_INTERVAL = Duration.ofHours(1);
        /** Default most records deleted by one statement. */
        public static final int DEFAULT_BATCH_SIZE = 1000;
        private static final int MAX_BATCH_SIZE = 100_000;

        private @Nullable RecordPurge store;
        private PartitionOwnership ownership = PartitionOwnership.allPartitions();
        private Clock clock = Clock.systemUTC();
        private Duration retention = DEFAULT_RETENTION;
        private Duration interval = DEFAULT_INTERVAL;
        private int batchSize = DEFAULT_BATCH_SIZE;
        private boolean includeFailed;

        private Builder() {
        }

        public Builder store(RecordPurge store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        /** Whose partitions this instance purges. Default: all. */
        public Builder ownership(PartitionOwnership ownership) {
            this.ownership = Objects.requireNonNull(ownership, "ownership");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** How old (by creation) a finished record must be to be purged; not negative. */
        public Builder retention(Duration retention) {
            this.retention = Checks.notNegative("outbox.purge.retention", retention);
            return this;
        }

        /** Pause between two purges; positive. */
        public Builder interval(Duration interval) {
            this.interval = Checks.positive("outbox.purge.interval", interval);
            return this;
        }

        /** Most records one statement deletes (1..100000). */
        public Builder batchSize(int batchSize) {
            this.batchSize = Checks.inRange("outbox.purge.batch-size", batchSize, 1, MAX_BATCH_SIZE);
            return this;
        }

        /** Purge FAILED records too (default false: they wait for an operator). */
        public Builder includeFailed(boolean includeFailed) {
            this.includeFailed = includeFailed;
            return this;
        }

        public OutboxPurger build() {
            return new OutboxPurger(this);
        }
    }
}
