package dev.outbox.partition;

/**
 * Answers the processor's one question about the cluster: which partitions may this instance process now?
 *
 * <p>Called by the processing loop before every fetch, so implementations must be cheap (return a cached answer that a
 * coordinator refreshes in the background).
 */
@FunctionalInterface
public interface PartitionOwnership {

    /** The partitions this instance owns at this moment; never null, possibly empty. */
    OwnedPartitions ownedPartitions();

    /** One instance that owns all 256 partitions: the setting for a single node. */
    static PartitionOwnership allPartitions() {
        return OwnedPartitions::all;
    }
}
