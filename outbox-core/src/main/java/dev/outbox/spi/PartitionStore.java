package dev.outbox.spi;

import java.time.Duration;
import java.util.List;

/**
 * The partition table: who owns which partition under which epoch. Claims and releases are conditional, so
 * concurrent coordinators can never both own a partition.
 */
public interface PartitionStore {

    /** All 256 rows, ordered by partition. */
    List<PartitionState> findAll();

    /**
     * Makes {@code instanceId} the owner with epoch {@code expectedEpoch + 1}, provided the row still has
     * {@code expectedEpoch} and its owner is none, {@code instanceId} itself, or an instance whose last heartbeat is
     * older than {@code staleTimeout} by the database's clock (or that has no row at all).
     *
     * @return true when the claim took effect
     */
    boolean claim(int partition, long expectedEpoch, String instanceId, Duration staleTimeout);

    /** Clears the owner, provided it is {@code instanceId} under {@code epoch}; true when it took effect. */
    boolean release(int partition, long epoch, String instanceId);
}
