package dev.outbox.console;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.monitoring.OutboxSnapshot;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.PartitionState;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.jspecify.annotations.Nullable;

/**
 * The last hour of one outbox, from the monitor's snapshots (no query of its own): a sample of the record counts per
 * distinct snapshot, the records each live instance says it completed, the partition claims seen between consecutive
 * snapshots, and the instances seen live. Memory stays bounded: samples and instances older than {@link #RETAINED}
 * go, and at most {@code maxSamples} are kept.
 */
final class ConsoleHistory {

    static final Duration RETAINED = Duration.ofHours(1);
    /** One sample a second for the hour: enough for refresh intervals down to a second. */
    static final int MAX_SAMPLES = 3600;
    /** The drain rate is taken over at least this long when the history is that long. */
    static final Duration DRAIN_WINDOW = Duration.ofMinutes(1);

    /** The key of the local node's own count in a step, outside a cluster: no instance id is ever empty. */
    private static final String LOCAL_NODE = "";

    private final Clock clock;
    private final int maxSamples;
    private final @Nullable LongSupplier localRecordsCompleted;
    private final Deque<Step> steps = new ArrayDeque<>();
    /** Each instance seen live within the retained hour, as last seen, by id. */
    private final Map<String, SeenInstance> seen = new HashMap<>();
    private @Nullable Instant lastTakenAt;
    /** Epoch per partition at the last snapshot; empty before the first and outside a cluster. */
    private Map<Integer, Long> lastEpochs = Map.of();

    /**
     * @param localRecordsCompleted the records this node's processor completed since it started, for the drain rate
     *     outside a cluster (the snapshots show no live instance then); null when this node processes none
     */
    ConsoleHistory(Clock clock, int maxSamples, @Nullable LongSupplier localRecordsCompleted) {
        if (maxSamples < 2) {
            throw new IllegalArgumentException("maxSamples must be at least 2, not " + maxSamples);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxSamples = maxSamples;
        this.localRecordsCompleted = localRecordsCompleted;
    }

    /**
     * Keeps a sample of the snapshot unless it is the last one seen or older, with the count of completed records each
     * live instance published; counts a claim for the new owner of each partition whose epoch grew since the last
     * snapshot (several claims between two snapshots count as one); and notes the live instances as seen.
     */
    synchronized void record(OutboxSnapshot snapshot) {
        Instant takenAt = snapshot.takenAt();
        if (lastTakenAt != null && !takenAt.isAfter(lastTakenAt)) {
            return;
        }
        Map<String, Integer> claims = new TreeMap<>();
        Map<Integer, Long> epochs = new HashMap<>();
        for (PartitionState partition : snapshot.partitions()) {
            epochs.put(partition.partition(), partition.epoch());
            Long before = lastEpochs.get(partition.partition());
            String owner = partition.owner();
            if (before != null && partition.epoch() > before && owner != null) {
                claims.merge(owner, 1, Integer::sum);
            }
        }
        lastEpochs = epochs;
        lastTakenAt = takenAt;
        for (InstanceState instance : snapshot.liveInstances()) {
            seen.put(instance.instanceId(), new SeenInstance(instance, takenAt));
        }
        steps.addLast(new Step(new Sample(takenAt, snapshot.recordCount(OutboxRecordStatus.NEW),
                snapshot.recordCount(OutboxRecordStatus.FAILED), snapshot.deferredRecordCount()),
                Collections.unmodifiableMap(claims), completedByInstance(snapshot)));
        prune();
    }

    /**
     * The count each live instance published with its last heartbeat (those that published none are left out); outside
     * a cluster, where no instance is live, this node's own count.
     */
    private Map<String, Long> completedByInstance(OutboxSnapshot snapshot) {
        if (snapshot.liveInstances().isEmpty()) {
            return localRecordsCompleted == null ? Map.of() : Map.of(LOCAL_NODE, localRecordsCompleted.getAsLong());
        }
        Map<String, Long> completed = new HashMap<>();
        for (InstanceState instance : snapshot.liveInstances()) {
            Long published = instance.recordsCompleted();
            if (published != null) {
                completed.put(instance.instanceId(), published);
            }
        }
        return completed;
    }

    /** The instances seen live within the retained hour, each as last seen, keyed by id. */
    synchronized Map<String, SeenInstance> seenInstances() {
        prune();
        return Map.copyOf(seen);
    }

    /** The retained samples, oldest first, the drain rate and the claims per instance over them. */
    synchronized History history() {
        prune();
        List<Step> retained = List.copyOf(steps);
        List<Sample> samples = retained.stream().map(Step::sample).toList();
        Map<String, Integer> claims = new TreeMap<>();
        steps.forEach(step -> step.claims().forEach((owner, count) -> claims.merge(owner, count, Integer::sum)));
        return new History(samples, drainRate(retained), Collections.unmodifiableMap(claims));
    }

    private void prune() {
        Instant oldest = clock.instant().minus(RETAINED);
        while (!steps.isEmpty() && (steps.size() > maxSamples || steps.peekFirst().sample().time().isBefore(oldest))) {
            steps.removeFirst();
        }
        seen.values().removeIf(instance -> instance.seenAt().isBefore(oldest));
    }

    /**
     * Records completed per second from the newest sample back to the latest one at least {@link #DRAIN_WINDOW} older
     * (or the oldest, in a shorter history): the growth of each instance's published count, summed. An instance whose
     * count fell restarted, and grew from 0 since; one missing from some samples (not live, or publishing no count)
     * adds what it grew between the samples that have it. No count over the record table, so it holds whether
     * completed records are kept, purged or deleted at once.
     */
    private static DrainRate drainRate(List<Step> retained) {
        if (retained.size() < 2) {
            return DrainRate.unknown(null, "fewer than two samples yet");
        }
        Instant newest = retained.get(retained.size() - 1).sample().time();
        Instant windowStart = newest.minus(DRAIN_WINDOW);
        int from = 0;
        for (int i = retained.size() - 2; i >= 0; i--) {
            if (!retained.get(i).sample().time().isAfter(windowStart)) {
                from = i;
                break;
            }
        }
        double seconds = Duration.between(retained.get(from).sample().time(), newest).toMillis() / 1000.0;
        Map<String, Long> lastCount = new HashMap<>();
        long grown = 0;
        boolean counted = false;
        for (Step step : retained.subList(from, retained.size())) {
            for (Map.Entry<String, Long> count : step.completedByInstance().entrySet()) {
                Long before = lastCount.put(count.getKey(), count.getValue());
                if (before != null) {
                    counted = true;
                    grown += count.getValue() >= before ? count.getValue() - before : count.getValue();
                }
            }
        }
        if (!counted) {
            return DrainRate.unknown(seconds, "no instance published a count of completed records in two samples of "
                    + "the window (instances of an older version publish none, and a node that processes no records "
                    + "has none of its own)");
        }
        if (seconds <= 0) {
            return DrainRate.unknown(null, "the samples are of the same moment");
        }
        return new DrainRate(grown / seconds, seconds, null);
    }

    /**
     * A sample with the claims counted since the snapshot before it, and the count of completed records each instance
     * had published (this node's own count under an empty id outside a cluster).
     */
    private record Step(Sample sample, Map<String, Integer> claims, Map<String, Long> completedByInstance) {
    }

    /**
     * An instance as last seen live.
     *
     * @param seenAt when the monitor took the last snapshot that showed it live
     */
    record SeenInstance(InstanceState state, Instant seenAt) {
    }

    /**
     * The record counts of one snapshot.
     *
     * @param time when the monitor took it
     * @param pending NEW records
     * @param deferred NEW records waiting for a handler their partition's instance lacks
     */
    record Sample(Instant time, long pending, long failed, long deferred) {
    }

    /**
     * @param completedPerSecond null when unknown
     * @param overSeconds the time the rate is taken over; null when there is none
     * @param unknownBecause why the rate is unknown; null when it is known
     */
    record DrainRate(@Nullable Double completedPerSecond, @Nullable Double overSeconds,
            @Nullable String unknownBecause) {

        static DrainRate unknown(@Nullable Double overSeconds, String because) {
            return new DrainRate(null, overSeconds, because);
        }
    }

    /**
     * @param samples oldest first, at most one per distinct snapshot, none older than an hour
     * @param epochChanges partitions claimed per instance (an epoch that grew, counted to its new owner) over the
     *     samples' time; instances without a claim are left out
     */
    record History(List<Sample> samples, DrainRate drainRate, Map<String, Integer> epochChanges) {
    }
}
