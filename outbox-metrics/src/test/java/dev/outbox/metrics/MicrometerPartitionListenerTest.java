package dev.outbox.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Set;
import org.junit.jupiter.api.Test;

class MicrometerPartitionListenerTest {

    @Test
    void countsRebalancesAndThePartitionsGainedAndLost() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        MicrometerPartitionListener listener = new MicrometerPartitionListener(registry);

        listener.onPartitionsChanged(Set.of(1, 2, 3), Set.of());
        listener.onPartitionsChanged(Set.of(), Set.of(2));

        assertThat(registry.get("outbox.partitions.rebalances").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("outbox.partitions.gained").counter().count()).isEqualTo(3.0);
        assertThat(registry.get("outbox.partitions.lost").counter().count()).isEqualTo(1.0);
    }

    @Test
    void twoOutboxesCountTheirPartitionsUnderTheirTag() {
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        new MicrometerPartitionListener(registry, Tags.of("outbox", "orders")).onPartitionsChanged(Set.of(1, 2), Set.of());
        new MicrometerPartitionListener(registry, Tags.of("outbox", "billing")).onPartitionsChanged(Set.of(7), Set.of());

        assertThat(registry.get("outbox.partitions.gained").tag("outbox", "orders").counter().count()).isEqualTo(2.0);
        assertThat(registry.get("outbox.partitions.gained").tag("outbox", "billing").counter().count())
                .isEqualTo(1.0);
    }
}
