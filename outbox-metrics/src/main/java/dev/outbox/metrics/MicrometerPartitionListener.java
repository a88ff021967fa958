package dev.outbox.metrics;

import dev.outbox.spi.PartitionListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Objects;
import java.util.Set;

/**
 * Counts how this instance's partitions change: {@code outbox.partitions.rebalances} (changes of its set),
 * {@code outbox.partitions.gained} and {@code outbox.partitions.lost} (partitions).
 */
public final class MicrometerPartitionListener implements PartitionListener {

    private final Counter rebalances;
    private final Counter gained;
    private final Counter lost;

    public MicrometerPartitionListener(MeterRegistry registry) {
        Objects.requireNonNull(registry, "registry");
        this.rebalances = Counter.builder("outbox.partitions.rebalances")
                .description("Changes of the set of partitions this instance processes").register(registry);
        this.gained = Counter.builder("outbox.partitions.gained")
                .description("Partitions this instance took on").register(registry);
        this.lost = Counter.builder("outbox.partitions.lost")
                .description("Partitions this instance gave up or lost").register(registry);
    }

    @Override
    public void onPartitionsChanged(Set<Integer> gainedPartitions, Set<Integer> lostPartitions) {
        rebalances.increment();
        gained.increment(gainedPartitions.size());
        lost.increment(lostPartitions.size());
    }
}
