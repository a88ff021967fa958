package dev.outbox.spi;

import java.util.List;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * Told when the set of partitions this instance processes changes: after a rebalance, a takeover, a hand-over or a
 * lost lease. Called on the coordinator's threads while it holds its lock: keep it quick (count, log), never block.
 */
@FunctionalInterface
public interface PartitionListener {

    PartitionListener NOOP = (gained, lost) -> { };

    /**
     * @param gained partitions this instance now processes and did not before
     * @param lost partitions it no longer processes
     */
    void onPartitionsChanged(Set<Integer> gained, Set<Integer> lost);

    /** Tells every listener, in order; one that throws does not keep the others from being told. */
    static PartitionListener composite(List<? extends PartitionListener> listeners) {
        List<PartitionListener> copy = List.copyOf(listeners);
        return (gained, lost) -> {
            for (PartitionListener listener : copy) {
                try {
                    listener.onPartitionsChanged(gained, lost);
                } catch (RuntimeException e) {
                    LoggerFactory.getLogger(PartitionListener.class)
                            .warn("Outbox partition listener {} failed", listener, e);
                }
            }
        };
    }
}
