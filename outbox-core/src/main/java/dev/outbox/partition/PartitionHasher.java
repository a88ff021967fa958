package dev.outbox.partition;

import com.google.common.hash.HashFunction;
import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * Maps an aggregate id to one of the {@value #PARTITION_COUNT} partitions.
 *
 * <p>The function is part of the storage format: rows store the partition computed here, and every instance must agree
 * on it. It is canonical MurmurHash3 x86_32 with seed 0 over the UTF-8 bytes of the id (Guava's
 * {@code murmur3_32_fixed}), keeping the low 8 bits: {@code "hello"} hashes to {@code 0x248bfa47}, partition 71.
 */
public final class PartitionHasher {

    /** Number of partitions. Fixed: changing it would move every stored record to another owner. */
    public static final int PARTITION_COUNT = 256;

    private static final HashFunction MURMUR3_32 = Hashing.murmur3_32_fixed(0);

    private PartitionHasher() {
    }

    /** The 32-bit MurmurHash3 x86_32 (seed 0) of the UTF-8 bytes of {@code aggregateId}. */
    public static int hashOf(String aggregateId) {
        Objects.requireNonNull(aggregateId, "aggregateId");
        return MURMUR3_32.hashString(aggregateId, StandardCharsets.UTF_8).asInt();
    }

    /** The partition, {@code 0..255}, that owns every record of {@code aggregateId}. */
    public static int partitionOf(String aggregateId) {
        return hashOf(aggregateId) & (PARTITION_COUNT - 1);
    }
}
