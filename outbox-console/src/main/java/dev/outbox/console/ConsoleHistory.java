package dev.outbox.console;

import dev.outbox.OutboxRecordStatus;
import dev.outbox.monitoring.OutboxSnapshot;
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
import org.jspecify.annotations.Nullable;

/**
 * The last hour of one outbox, from the monitor's snapshots (no query of its own): a sample of the record counts per
 * distinct snapshot, and the partition claims seen between consecutive snapshots. Memory stays bounded: samples older
 * than {@link #RETAINED} go, and at most {@code maxSamples} are kept.
 */
final class ConsoleHistory {

    static final Duration RETAINED = Duration.ofHours(1);
    /** One sample a second for the hour: enough for refresh intervals down to a second. */
    static final int MAX_SAMPLES = 3600;
    /** The drain rate is taken over at least this long when the history is that long. */
    static final Duration DRAIN_WINDOW = Duration.ofMinutes(1);

    private final Clock clock;
    private final int maxSamples;
    private final boolean completedRecordsDeleted;
    private final Deque<Step> steps = new ArrayDeque<>();
    private @Nullable Instant lastTakenAt;
    /** Epoch per partition at the last snapshot; empty before the first and outside a cluster. */
    private Map<Integer, Long> lastEpochs = Map.of();

    /**
     * @param completedRecordsDeleted whether the outbox deletes records once handled
     *     ({@code outbox.processing.delete-completed-records}): then no COMPLETED count tells the drain rate
     */
    ConsoleHistory(Clock clock, int maxSamples, boolean completedRecordsDeleted) {
        if (maxSamples < 2) {
            throw new IllegalArgumentException("maxSamples must be at least 2, not " + maxSamples);
        }
        this.clock = Objects.requireNonNull(clock, "clock");
        this.maxSamples = maxSamples;
        this.completedRecordsDeleted = completedRecordsDeleted;
    }

    /**
     * Keeps a sample of the snapshot unless it is the last one seen or older, and counts a claim for the new owner of
     * each partition whose epoch grew since the last snapshot (several claims between two snapshots count as one).
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
        steps.addLast(new Step(new Sample(takenAt, snapshot.recordCount(OutboxRecordStatus.NEW),
                snapshot.recordCount(OutboxRecordStatus.FAILED),
                snapshot.recordCounts().getOrDefault(OutboxRecordStatus.COMPLETED, 0L),
                snapshot.deferredRecordCount()), Collections.unmodifiableMap(claims)));
        prune();
    }

    /** The retained samples, oldest first, the drain rate and the claims per instance over them. */
    synchronized History history() {
        prune();
        List<Sample> samples = steps.stream().map(Step::sample).toList();
        Map<String, Integer> claims = new TreeMap<>();
        steps.forEach(step -> step.claims().forEach((owner, count) -> claims.merge(owner, count, Integer::sum)));
        return new History(samples, drainRate(samples), Collections.unmodifiableMap(claims));
    }

    private void prune() {
        Instant oldest = clock.instant().minus(RETAINED);
        while (!steps.isEmpty() && (steps.size() > maxSamples || steps.peekFirst().sample().time().isBefore(oldest))) {
            steps.removeFirst();
        }
    }

    /**
     * COMPLETED records per second from the newest sample back to the latest one at least {@link #DRAIN_WINDOW}
     * older (or the oldest, in a shorter history). Unknown when completed records are deleted, or when the COMPLETED
     * count fell within the window (a purge deleted some): its increase would not be what was handled.
     */
    private DrainRate drainRate(List<Sample> samples) {
        if (completedRecordsDeleted) {
            return DrainRate.unknown(null, "completed records are deleted "
                    + "(outbox.processing.delete-completed-records), so no COMPLETED count follows them");
        }
        if (samples.size() < 2) {
            return DrainRate.unknown(null, "fewer than two samples yet");
        }
        Sample newest = samples.get(samples.size() - 1);
        Instant windowStart = newest.time().minus(DRAIN_WINDOW);
        int from = 0;
        for (int i = samples.size() - 2; i >= 0; i--) {
            if (!samples.get(i).time().isAfter(windowStart)) {
                from = i;
                break;
            }
        }
        Sample start = samples.get(from);
        double seconds = Duration.between(start.time(), newest.time()).toMillis() / 1000.0;
        for (int i = from + 1; i < samples.size(); i++) {
            if (samples.get(i).completed() < samples.get(i - 1).completed()) {
                return DrainRate.unknown(seconds, "the COMPLETED count fell within the window: completed records "
                        + "were deleted (a purge?), so its increase is not what was handled");
            }
        }
        if (seconds <= 0) {
            return DrainRate.unknown(null, "the samples are of the same moment");
        }
        return new DrainRate((newest.completed() - start.completed()) / seconds, seconds, null);
    }

    /** A sample with the claims counted since the snapshot before it. */
    private record Step(Sample sample, Map<String, Integer> claims) {
    }

    /**
     * The record counts of one snapshot.
     *
     * @param time when the monitor took it
     * @param pending NEW records
     * @param deferred NEW records waiting for a handler their partition's instance lacks
     */
    record Sample(Instant time, long pending, long failed, long completed, long deferred) {
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
