package dev.outbox.metrics;

import dev.outbox.spi.PartitionListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Tags;
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
        this(registry, Tags.empty());
    }

    /** @param tags put on every meter, such as the outbox's name when an application has several */
    public MicrometerPartitionListener(MeterRegistry registry, Iterable<Tag> tags) {
        Objects.requireNonNull(registry, "registry");
        Objects.requireNonNull(tags, "tags");
        this.rebalances = Counter.builder("outbox.partitions.rebalances")
                .description("Changes of the set of partitions this instance processes").tags(tags).register(registry);
        this.gained = Counter.builder("outbox.partitions.gained")
                .description("Partitions this instance took on").tags(tags).register(registry);
        this.lost = Counter.builder("outbox.partitions.lost")
                .description("Partitions this instance gave up or lost").tags(tags).register(registry);
    }

    @Override
    public void onPartitionsChanged(Set<Integer> gainedPartitions, Set<Integer> lostPartitions) {
        rebalances.increment();
        gained.increment(gainedPartitions.size());
        lost.increment(lostPartitions.size());
    }
}
