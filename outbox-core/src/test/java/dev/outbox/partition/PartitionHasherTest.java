package dev.outbox.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.util.Random;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PartitionHasherTest {

    /**
     * MurmurHash3 x86_32 written from the algorithm description (Austin Appleby): 4-byte little-endian blocks mixed
     * with c1/c2 and rotations, the 1..3 byte tail, the length, then the fmix32 finalizer.
     */
    static int referenceMurmur3x86_32(byte[] data, int seed) {
        final int c1 = 0xcc9e2d51;
        final int c2 = 0x1b873593;
        int h = seed;
        int blocks = data.length / 4;
        for (int i = 0; i < blocks; i++) {
            int offset = i * 4;
            int k = (data[offset] & 0xff)
                    | (data[offset + 1] & 0xff) << 8
                    | (data[offset + 2] & 0xff) << 16
                    | (data[offset + 3] & 0xff) << 24;
            k *= c1;
            k = Integer.rotateLeft(k, 15);
            k *= c2;
            h ^= k;
            h = Integer.rotateLeft(h, 13);
            h = h * 5 + 0xe6546b64;
        }
        int tailStart = blocks * 4;
        int remaining = data.length - tailStart;
        if (remaining > 0) {
            int k = 0;
            if (remaining == 3) {
                k ^= (data[tailStart + 2] & 0xff) << 16;
            }
            if (remaining >= 2) {
                k ^= (data[tailStart + 1] & 0xff) << 8;
            }
            k ^= data[tailStart] & 0xff;
            k *= c1;
            k = Integer.rotateLeft(k, 15);
            k *= c2;
            h ^= k;
        }
        h ^= data.length;
        h ^= h >>> 16;
        h *= 0x85ebca6b;
        h ^= h >>> 13;
        h *= 0xc2b2ae35;
        h ^= h >>> 16;
        return h;
    }

    private static int reference(String text) {
        return referenceMurmur3x86_32(text.getBytes(StandardCharsets.UTF_8), 0);
    }

    private static byte[] bytes(int... values) {
        byte[] result = new byte[values.length];
        for (int i = 0; i < values.length; i++) {
            result[i] = (byte) values[i];
        }
        return result;
    }

    @Test
    void helloHashesTo0x248bfa47InPartition71() {
        assertThat(PartitionHasher.hashOf("hello")).isEqualTo(0x248bfa47);
        assertThat(PartitionHasher.partitionOf("hello")).isEqualTo(71);
    }

    @ParameterizedTest(name = "\"{0}\" -> {1}")
    @CsvSource(delimiter = '|', value = {
            "''|0x00000000",
            "hello|0x248bfa47",
            "The quick brown fox jumps over the lazy dog|0x2e4ff723",
            "!|0x72661cf4",
            "!C|0xa0f7b07a",
            "!Ce|0x7e4a8634",
    })
    void canonicalSeedZeroVectorsHashAsPublished(String input, String expectedHex) {
        int expected = Integer.parseUnsignedInt(expectedHex.substring(2), 16);

        assertThat(PartitionHasher.hashOf(input)).isEqualTo(expected);
        assertThat(reference(input)).isEqualTo(expected);
    }

    @Test
    void nulBytesAreHashedLikeAnyOtherByte() {
        // U+0000 encodes to the single byte 0x00 in UTF-8: published vectors for 0x00, 0x0000, ... with seed 0.
        assertThat(PartitionHasher.hashOf("\0")).isEqualTo(0x514e28b7);
        assertThat(PartitionHasher.hashOf("\0\0")).isEqualTo(0x30f4c306);
        assertThat(PartitionHasher.hashOf("\0\0\0")).isEqualTo(0x85f0b427);
        assertThat(PartitionHasher.hashOf("\0\0\0\0")).isEqualTo(0x2362f9de);
    }

    @Test
    void referenceImplementationMatchesPublishedVectorsForOtherSeedsAndRawBytes() {
        // Guards the reference itself, so that agreeing with it means something.
        assertThat(referenceMurmur3x86_32(new byte[0], 1)).isEqualTo(0x514e28b7);
        assertThat(referenceMurmur3x86_32(new byte[0], 0xffffffff)).isEqualTo(0x81f16f39);
        assertThat(referenceMurmur3x86_32(bytes(0xff, 0xff, 0xff, 0xff), 0)).isEqualTo(0x76293b50);
        assertThat(referenceMurmur3x86_32(bytes(0x21, 0x43, 0x65, 0x87), 0)).isEqualTo(0xf55b516b);
        assertThat(referenceMurmur3x86_32(bytes(0x21, 0x43, 0x65, 0x87), 0x5082edee)).isEqualTo(0x2362f9de);
        assertThat(referenceMurmur3x86_32(bytes(0x21, 0x43, 0x65), 0)).isEqualTo(0x7e4a8634);
        assertThat(referenceMurmur3x86_32(bytes(0x21, 0x43), 0)).isEqualTo(0xa0f7b07a);
        assertThat(referenceMurmur3x86_32(bytes(0x21), 0)).isEqualTo(0x72661cf4);
        assertThat(referenceMurmur3x86_32(bytes(0, 0, 0, 0), 0)).isEqualTo(0x2362f9de);
        int seed = 0x9747b28c;
        assertThat(referenceMurmur3x86_32("aaaa".getBytes(StandardCharsets.UTF_8), seed)).isEqualTo(0x5a97808a);
        assertThat(referenceMurmur3x86_32("Hello, world!".getBytes(StandardCharsets.UTF_8), seed))
                .isEqualTo(0x24884cba);
        assertThat(referenceMurmur3x86_32(
                "The quick brown fox jumps over the lazy dog".getBytes(StandardCharsets.UTF_8), seed))
                .isEqualTo(0x2fa826cd);
        assertThat(referenceMurmur3x86_32("ππππππππ".getBytes(StandardCharsets.UTF_8), seed)).isEqualTo(0xd58063c1);
    }

    @Test
    void everyTailLengthMatchesTheReference() {
        StringBuilder text = new StringBuilder();
        for (int length = 0; length <= 40; length++) {
            String input = text.toString();
            assertThat(PartitionHasher.hashOf(input)).as("length %d", length).isEqualTo(reference(input));
            text.append((char) ('a' + length % 26));
        }
    }

    @Test
    void multiByteUtf8IsHashedOverItsUtf8Bytes() {
        String[] samples = {"é", "ü-ß", "中文", "日本語のテキスト", "😀", "a😀b", "👍🏽", "𝄞 music", "\u0080", "\u07ff",
                "\u0800", "\uffff", new String(Character.toChars(0x10ffff)), "Ωmega-Ψ"};
        for (String sample : samples) {
            assertThat(PartitionHasher.hashOf(sample)).as(sample).isEqualTo(reference(sample));
        }
    }

    @Test
    void randomStringsIncludingMultiByteAndSurrogatePairsMatchTheReference() {
        Random random = new Random(20240611L);
        for (int i = 0; i < 20_000; i++) {
            String input = randomWellFormedString(random);
            int expected = reference(input);
            assertThat(PartitionHasher.hashOf(input)).as("input %s", codePointsOf(input)).isEqualTo(expected);
            assertThat(PartitionHasher.partitionOf(input)).isEqualTo(expected & 0xFF);
        }
    }

    @Test
    void partitionIsAlwaysTheLowByteOfTheHashAndInRange() {
        Random random = new Random(7L);
        int[] seen = new int[PartitionHasher.PARTITION_COUNT];
        for (int i = 0; i < 50_000; i++) {
            String aggregateId = "order-" + random.nextLong();
            int partition = PartitionHasher.partitionOf(aggregateId);
            assertThat(partition).isBetween(0, 255).isEqualTo(PartitionHasher.hashOf(aggregateId) & 0xFF);
            seen[partition]++;
        }
        // 50,000 ids over 256 partitions: every partition is hit (expected ~195 each).
        assertThat(IntStream.of(seen).filter(count -> count == 0).count()).isZero();
    }

    @Test
    void partitionIsStableForTheSameId() {
        assertThat(PartitionHasher.partitionOf("customer-42")).isEqualTo(PartitionHasher.partitionOf("customer-42"));
        assertThat(PartitionHasher.partitionOf(new String("customer-42".toCharArray())))
                .isEqualTo(PartitionHasher.partitionOf("customer-42"));
    }

    @Test
    void nullAggregateIdIsRejected() {
        assertThatThrownBy(() -> PartitionHasher.hashOf(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("aggregateId");
    }

    static String randomWellFormedString(Random random) {
        int length = random.nextInt(41);
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            int codePoint;
            switch (random.nextInt(4)) {
                case 0 -> codePoint = random.nextInt(0x80);
                case 1 -> codePoint = 0x80 + random.nextInt(0x800 - 0x80);
                case 2 -> {
                    do {
                        codePoint = 0x800 + random.nextInt(0x10000 - 0x800);
                    } while (codePoint >= Character.MIN_SURROGATE && codePoint <= Character.MAX_SURROGATE);
                }
                default -> codePoint = 0x10000 + random.nextInt(0x110000 - 0x10000);
            }
            text.appendCodePoint(codePoint);
        }
        return text.toString();
    }

    private static String codePointsOf(String text) {
        StringBuilder out = new StringBuilder("[");
        text.codePoints().forEach(cp -> out.append(String.format("U+%04X ", cp)));
        return out.append(']').toString();
    }

    @Nested
    class OwnedPartitionsTest {

        @Test
        void allContainsEveryPartition() {
            OwnedPartitions all = OwnedPartitions.all();
            assertThat(all.size()).isEqualTo(256);
            assertThat(all.isAll()).isTrue();
            assertThat(all.isEmpty()).isFalse();
            for (int p = 0; p < 256; p++) {
                assertThat(all.contains(p)).as("partition %d", p).isTrue();
            }
            assertThat(all.toArray()).isEqualTo(IntStream.range(0, 256).toArray());
        }

        @Test
        void noneContainsNoPartition() {
            OwnedPartitions none = OwnedPartitions.none();
            assertThat(none.size()).isZero();
            assertThat(none.isEmpty()).isTrue();
            assertThat(none.isAll()).isFalse();
            for (int p = 0; p < 256; p++) {
                assertThat(none.contains(p)).as("partition %d", p).isFalse();
            }
            assertThat(none.toArray()).isEmpty();
        }

        @Test
        void ofContainsExactlyTheGivenPartitionsAcrossWordBoundaries() {
            int[] chosen = {0, 63, 64, 127, 128, 191, 192, 255};
            OwnedPartitions owned = OwnedPartitions.of(chosen);

            assertThat(owned.size()).isEqualTo(chosen.length);
            assertThat(owned.isAll()).isFalse();
            assertThat(owned.isEmpty()).isFalse();
            assertThat(owned.toArray()).containsExactly(chosen);
            for (int p = 0; p < 256; p++) {
                int partition = p;
                boolean expected = IntStream.of(chosen).anyMatch(c -> c == partition);
                assertThat(owned.contains(p)).as("partition %d", p).isEqualTo(expected);
            }
        }

        @Test
        void ofIgnoresDuplicatesAndSortsTheStream() {
            OwnedPartitions owned = OwnedPartitions.of(200, 3, 200, 71);
            assertThat(owned.size()).isEqualTo(3);
            assertThat(owned.stream().toArray()).containsExactly(3, 71, 200);
        }

        @Test
        void ofEveryPartitionIsAllAndOfNothingIsNone() {
            assertThat(OwnedPartitions.of(IntStream.range(0, 256).toArray())).isEqualTo(OwnedPartitions.all());
            assertThat(OwnedPartitions.of(IntStream.range(0, 256).toArray()).isAll()).isTrue();
            assertThat(OwnedPartitions.of()).isEqualTo(OwnedPartitions.none());
            assertThat(OwnedPartitions.of(1, 2).hashCode()).isEqualTo(OwnedPartitions.of(2, 1).hashCode());
            assertThat(OwnedPartitions.of(1, 2)).isNotEqualTo(OwnedPartitions.of(1, 3));
            assertThat(OwnedPartitions.of(255).isAll()).isFalse();
        }

        @ParameterizedTest
        @CsvSource({"-1", "256", "-2147483648", "2147483647"})
        void outOfRangePartitionsAreRejectedNamingTheValue(int partition) {
            assertThatThrownBy(() -> OwnedPartitions.of(5, partition)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("0..255").hasMessageContaining(String.valueOf(partition));
            assertThatThrownBy(() -> OwnedPartitions.all().contains(partition))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(partition));
            assertThatThrownBy(() -> OwnedPartitions.none().contains(partition))
                    .isInstanceOf(IllegalArgumentException.class).hasMessageContaining(String.valueOf(partition));
        }

        @Test
        void allPartitionsOwnershipOwnsAll() {
            assertThat(PartitionOwnership.allPartitions().ownedPartitions().isAll()).isTrue();
        }
    }
}
