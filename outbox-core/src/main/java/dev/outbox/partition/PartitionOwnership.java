package dev.outbox.partition;

/**
 * Answers the processor's one question about the cluster: which partitions may this instance process now?
 *
 * <p>Called by the processing loop before every fetch, so implementations must be cheap (return a cached answer that a
 * coordinator refreshes in the background).
 */
@FunctionalInterface
public interface PartitionOwnership {

    /** The partitions this instance owns at this moment, with their epochs; never null, possibly empty. */
    OwnedPartitions ownedPartitions();

    /**
     * A status write under {@code fence} was refused: the partition is no longer owned under it, another instance has
     * claimed it. Implementations stop handing it out at once. Default: nothing to do.
     */
    default void lost(Fence fence) {
    }

    /** One instance that owns all 256 partitions: the setting for a single node. */
    static PartitionOwnership allPartitions() {
        return OwnedPartitions::all;
    }
}
