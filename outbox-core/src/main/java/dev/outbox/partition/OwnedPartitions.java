package dev.outbox.partition;

import java.util.Arrays;
import java.util.Map;
import java.util.stream.IntStream;

/**
 * An immutable set of partition numbers, {@code 0..255}, each with the epoch under which it is owned: the partitions
 * one instance may process right now. The epoch is 0 where no coordination assigns one (a single instance).
 */
public final class OwnedPartitions {

    private static final int WORDS = PartitionHasher.PARTITION_COUNT / Long.SIZE;
    private static final long[] NO_EPOCHS = new long[PartitionHasher.PARTITION_COUNT];
    private static final OwnedPartitions NONE = new OwnedPartitions(new long[WORDS], NO_EPOCHS);
    private static final OwnedPartitions ALL = new OwnedPartitions(filled(), NO_EPOCHS);

    private final long[] bits;
    private final long[] epochs;

    private OwnedPartitions(long[] bits, long[] epochs) {
        this.bits = bits;
        this.epochs = epochs;
    }

    /** Every partition: what a single instance owns. */
    public static OwnedPartitions all() {
        return ALL;
    }

    /** No partition. */
    public static OwnedPartitions none() {
        return NONE;
    }

    /** The given partitions; each must be in {@code 0..255}. */
    public static OwnedPartitions of(int... partitions) {
        long[] bits = new long[WORDS];
        for (int partition : partitions) {
            checkPartition(partition);
            bits[partition >>> 6] |= 1L << partition;
        }
        return new OwnedPartitions(bits, NO_EPOCHS);
    }

    /** The given partitions with their epochs; each partition must be in {@code 0..255}, each epoch {@code >= 0}. */
    public static OwnedPartitions withEpochs(Map<Integer, Long> epochsByPartition) {
        long[] bits = new long[WORDS];
        long[] epochs = new long[PartitionHasher.PARTITION_COUNT];
        epochsByPartition.forEach((partition, epoch) -> {
            checkPartition(partition);
            if (epoch < 0) {
                throw new IllegalArgumentException("epoch of partition " + partition + " must be >= 0 but was " + epoch);
            }
            bits[partition >>> 6] |= 1L << partition;
            epochs[partition] = epoch;
        });
        return new OwnedPartitions(bits, epochs);
    }

    /** The epoch under which {@code partition} is owned; fails when it is not in this set. */
    public long epochOf(int partition) {
        if (!contains(partition)) {
            throw new IllegalArgumentException("partition " + partition + " is not owned");
        }
        return epochs[partition];
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
                && stream().allMatch(p -> epochs[p] == that.epochs[p]);
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
