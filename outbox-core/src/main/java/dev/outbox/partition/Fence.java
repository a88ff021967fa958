package dev.outbox.partition;

import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Who may store the outcome of a record of one partition: the owner that claimed the partition under an epoch. A
 * record is handed out under the fence its partition had at that moment, and a store changes the record's row only
 * while the partition table still names that owner under that epoch, so a stale owner (paused, cut off, or replaced)
 * can never write. An instance that owns every partition without coordination hands records out
 * {@linkplain #unfenced(int) unfenced}.
 *
 * @param partition the record's partition, {@code 0..255}
 * @param epoch the epoch of the claim, 0 when unfenced
 * @param owner the instance that claimed the partition, or null when unfenced
 */
public record Fence(int partition, long epoch, @Nullable String owner) {

    public Fence {
        if (partition < 0 || partition >= PartitionHasher.PARTITION_COUNT) {
            throw new IllegalArgumentException("partition must be in 0.." + (PartitionHasher.PARTITION_COUNT - 1)
                    + " but was " + partition);
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch must be >= 0 but was " + epoch);
        }
        if (owner == null && epoch != 0) {
            throw new IllegalArgumentException("an unfenced partition has epoch 0, not " + epoch);
        }
    }

    /** No fence: writes are not checked against the partition table. */
    public static Fence unfenced(int partition) {
        return new Fence(partition, 0, null);
    }

    /** The fence of {@code owner}'s claim on {@code partition} under {@code epoch}. */
    public static Fence of(int partition, long epoch, String owner) {
        return new Fence(partition, epoch, Objects.requireNonNull(owner, "owner"));
    }

    /** Whether writes under this fence are checked against the partition table. */
    public boolean isFenced() {
        return owner != null;
    }

    @Override
    public String toString() {
        return isFenced() ? "partition " + partition + " (epoch " + epoch + ", owner " + owner + ")"
                : "partition " + partition + " (unfenced)";
    }
}
