package dev.outbox.partition;

import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * An immutable set of partition numbers, {@code 0..255}: the partitions one instance may process right now, each with
 * the {@link Fence} its records are handed out under. A coordinated instance owns its partitions under an owner id
 * and an epoch per partition; where no coordination assigns them (a single instance) they are unfenced.
 */
public final class OwnedPartitions {

    private static final int WORDS = PartitionHasher.PARTITION_COUNT / Long.SIZE;
    private static final long[] NO_EPOCHS = new long[PartitionHasher.PARTITION_COUNT];
    private static final OwnedPartitions NONE = new OwnedPartitions(new long[WORDS], NO_EPOCHS, null);
    private static final OwnedPartitions ALL = new OwnedPartitions(filled(), NO_EPOCHS, null);

    private final long[] bits;
    private final long[] epochs;
    private final @Nullable String owner;

    private OwnedPartitions(long[] bits, long[] epochs, @Nullable String owner) {
        this.bits = bits;
        this.epochs = epochs;
        this.owner = owner;
    }

    /** Every partition: what a single instance owns. */
    public static OwnedPartitions all() {
        return ALL;
    }

    /** No partition. */
    public static OwnedPartitions none() {
        return NONE;
    }

    /** The given partitions, unfenced; each must be in {@code 0..255}. */
    public static OwnedPartitions of(int... partitions) {
        long[] bits = new long[WORDS];
        for (int partition : partitions) {
            checkPartition(partition);
            bits[partition >>> 6] |= 1L << partition;
        }
        return new OwnedPartitions(bits, NO_EPOCHS, null);
    }

    /**
     * The partitions {@code owner} has claimed, with the epoch of each claim; each partition must be in
     * {@code 0..255}, each epoch {@code >= 1}.
     */
    public static OwnedPartitions fenced(String owner, Map<Integer, Long> epochsByPartition) {
        Objects.requireNonNull(owner, "owner");
        long[] bits = new long[WORDS];
        long[] epochs = new long[PartitionHasher.PARTITION_COUNT];
        epochsByPartition.forEach((partition, epoch) -> {
            checkPartition(partition);
            if (epoch < 1) {
                throw new IllegalArgumentException("epoch of partition " + partition + " must be >= 1 but was " + epoch);
            }
            bits[partition >>> 6] |= 1L << partition;
            epochs[partition] = epoch;
        });
        return new OwnedPartitions(bits, epochs, owner);
    }

    /** The epoch under which {@code partition} is owned (0 when unfenced); fails when it is not in this set. */
    public long epochOf(int partition) {
        return fenceOf(partition).epoch();
    }

    /** The fence the records of {@code partition} are handed out under; fails when it is not in this set. */
    public Fence fenceOf(int partition) {
        if (!contains(partition)) {
            throw new IllegalArgumentException("partition " + partition + " is not owned");
        }
        return owner == null ? Fence.unfenced(partition) : Fence.of(partition, epochs[partition], owner);
    }

    /** Whether {@code fence} is the fence this set hands the records of its partition out under. */
    public boolean holds(Fence fence) {
        int partition = fence.partition();
        return contains(partition) && epochs[partition] == fence.epoch() && Objects.equals(owner, fence.owner());
    }


    public boolean contains(int partition) {
        checkPartition(partition);
        return (bits[partition >>> 6] & (1L << partition)) != 0;
    }

    public int size() {
        int size = 0;
        for (long word : bits) {
            size += Long.bitCount(word);
        }
        return size;
    }

    public boolean isEmpty() {
        return size() == 0;
    }

    /** True when this is every partition, so a store may skip filtering by partition. */
    public boolean isAll() {
        return size() == PartitionHasher.PARTITION_COUNT;
    }

    /** The partitions in ascending order. */
    public IntStream stream() {
        return IntStream.range(0, PartitionHasher.PARTITION_COUNT).filter(this::contains);
    }

    public int[] toArray() {
        return stream().toArray();
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof OwnedPartitions that && Arrays.equals(bits, that.bits)
                && Objects.equals(owner, that.owner) && stream().allMatch(p -> epochs[p] == that.epochs[p]);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(bits);
    }

    @Override
    public String toString() {
        return isAll() ? "OwnedPartitions[all]" : "OwnedPartitions" + Arrays.toString(toArray());
    }

    private static void checkPartition(int partition) {
        if (partition < 0 || partition >= PartitionHasher.PARTITION_COUNT) {
            throw new IllegalArgumentException(
                    "partition must be in 0.." + (PartitionHasher.PARTITION_COUNT - 1) + " but was " + partition);
        }
    }

    private static long[] filled() {
        long[] bits = new long[WORDS];
        Arrays.fill(bits, -1L);
        return bits;
    }
}
