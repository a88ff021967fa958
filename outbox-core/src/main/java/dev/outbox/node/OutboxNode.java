package dev.outbox.node;

import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.spi.WakeUpSource;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One running outbox: its processor, and optionally its cluster coordinator, purger and wake-up sources, wired to each
 * other here and nowhere else. The node is the unit an application runs one of per outbox database.
 *
 * <pre>{@code
 * OutboxNode node = OutboxNode.builder()
 *         .processor(OutboxProcessor.builder().recordStore(records).handler(record -> publish(record)))
 *         .cluster(ClusterCoordinator.builder().instanceStore(instances).partitionStore(partitions)
 *                 .instanceId("node-1"))
 *         .build();
 * node.start();
 * ...
 * node.stop();
 * }</pre>
 *
 * <p><b>Start:</b> join the cluster (register, heartbeat, claim a first share), then process, then listen to the
 * wake-up sources, then purge. <b>Stop</b>, the hand-over: stop purging and listening, mark this instance
 * SHUTTING_DOWN (it hands out no partition any more), drain the records in flight within the shutdown timeout, then
 * release every partition so that others claim them at once, and leave the instance table.
 *
 * <p>Without a cluster the node owns every partition: one instance per outbox, or a test.
 */
public final class OutboxNode implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxNode.class);

    private final OutboxProcessor processor;
    private final @Nullable ClusterCoordinator coordinator;
    private final @Nullable OutboxPurger purger;
    private final List<WakeUpSource> wakeUpSources;
    private boolean running;

    private OutboxNode(Builder builder) {
        OutboxProcessor.Builder processorBuilder = Objects.requireNonNull(builder.processor,
                "OutboxNode.builder(): processor is required");
        // The cycle processor ↔ coordinator is closed here: the coordinator asks the processor what is in hand and
        // how many records it completed (its heartbeats publish that), and wakes it when it gains partitions; the
        // processor asks the coordinator what it owns.
        this.coordinator = builder.cluster == null ? null : builder.cluster.handling(this::isHandling)
                .partitionsGained(this::wakeUp).recordsCompleted(this::recordsCompleted).build();
        PartitionOwnership ownership = coordinator != null ? coordinator : PartitionOwnership.allPartitions();
        this.processor = processorBuilder.ownership(ownership).build();
        this.purger = builder.purger == null ? null : builder.purger.ownership(ownership).build();
        this.wakeUpSources = List.copyOf(builder.wakeUpSources);
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Joins the cluster and starts processing, listening and purging. Does nothing when running. A start that fails
     * halfway is undone (see {@link #stop()}) before its failure is thrown: nothing keeps holding partitions.
     */
    public synchronized void start() {
        if (running) {
            return;
        }
        running = true;
        try {
            if (coordinator != null) {
                coordinator.start();
            }
            processor.start();
            wakeUpSources.forEach(source -> source.start(processor));
            if (purger != null) {
                purger.start();
            }
        } catch (RuntimeException | Error e) {
            try {
                stop();
            } catch (RuntimeException undoFailure) {
                e.addSuppressed(undoFailure);
            }
            throw e;
        }
    }

    /**
     * Hands over: stops purging and listening, marks the instance SHUTTING_DOWN, drains the records in flight within
     * the processor's shutdown timeout, then releases its partitions and leaves the cluster.
     *
     * @return true when every handler finished in time
     */
    public synchronized boolean stop() {
        if (!running) {
            return true;
        }
        running = false;
        if (purger != null) {
            purger.close();
        }
        wakeUpSources.forEach(OutboxNode::closeQuietly);
        if (coordinator != null) {
            coordinator.beginShutdown();
        }
        try {
            return processor.stop();
        } finally {
            if (coordinator != null) {
                coordinator.close();
            }
        }
    }

    /** Stops (see {@link #stop()}) and releases the processor's threads for good. */
    @Override
    public void close() {
        stop();
        processor.close();
    }

    public synchronized boolean isRunning() {
        return running;
    }

    public OutboxProcessor processor() {
        return processor;
    }

    /** The coordinator; empty when the node owns every partition without one. */
    public Optional<ClusterCoordinator> coordinator() {
        return Optional.ofNullable(coordinator);
    }

    /** The purger; empty when finished records are kept. */
    public Optional<OutboxPurger> purger() {
        return Optional.ofNullable(purger);
    }

    private boolean isHandling(int partition) {
        return processor.isHandling(partition);
    }

    private void wakeUp() {
        processor.wakeUp();
    }

    private long recordsCompleted() {
        return processor.recordsCompleted();
    }

    private static void closeQuietly(WakeUpSource source) {
        try {
            source.close();
        } catch (Exception e) {
            log.warn("Outbox: closing wake-up source {} failed: {}", source, e.toString());
        }
    }

    /**
     * Assembles an {@link OutboxNode} from the builders of its parts, configured but for their links to each other,
     * which the node sets: the processor's and the purger's ownership, the coordinator's {@code handling},
     * {@code partitionsGained} and {@code recordsCompleted}.
     */
    public static final class Builder {

        private OutboxProcessor.@Nullable Builder processor;
        private ClusterCoordinator.@Nullable Builder cluster;
        private OutboxPurger.@Nullable Builder purger;
        private final List<WakeUpSource> wakeUpSources = new ArrayList<>();

        private Builder() {
        }

        /** The processor: record store, handlers, options. Required. */
        public Builder processor(OutboxProcessor.Builder processor) {
            this.processor = Objects.requireNonNull(processor, "processor");
            return this;
        }

        /** The cluster membership: stores, instance id, timings. Without it the node owns every partition. */
        public Builder cluster(ClusterCoordinator.Builder cluster) {
            this.cluster = Objects.requireNonNull(cluster, "cluster");
            return this;
        }

        /** The purge of finished records, in the partitions the node owns. Without it nothing is purged. */
        public Builder purger(OutboxPurger.Builder purger) {
            this.purger = Objects.requireNonNull(purger, "purger");
            return this;
        }

        /** A source of wake-ups for the processor, such as {@link LocalWakeUps} or database notifications. */
        public Builder wakeUpSource(WakeUpSource wakeUpSource) {
            wakeUpSources.add(Objects.requireNonNull(wakeUpSource, "wakeUpSource"));
            return this;
        }

        public OutboxNode build() {
            return new OutboxNode(this);
        }
    }
}
