package dev.outbox.partition;

import java.util.Arrays;
import java.util.stream.IntStream;

/**
 * An immutable set of partition numbers, {@code 0..255}: the partitions one instance may process right now.
 */
public final class OwnedPartitions {

    private static final int WORDS = PartitionHasher.PARTITION_COUNT / Long.SIZE;
    private static final OwnedPartitions NONE = new OwnedPartitions(new long[WORDS]);
    private static final OwnedPartitions ALL = new OwnedPartitions(filled());

    private final long[] bits;

    private OwnedPartitions(long[] bits) {
        this.bits = bits;
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
        return new OwnedPartitions(bits);
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
        return other instanceof OwnedPartitions that && Arrays.equals(bits, that.bits);
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
