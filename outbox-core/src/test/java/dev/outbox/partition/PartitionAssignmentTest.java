package dev.outbox.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class PartitionAssignmentTest {

    private static final List<@Nullable String> EMPTY = Collections.nCopies(256, null);

    private static List<String> nodes(int n) {
        return IntStream.range(0, n).mapToObj(i -> String.format("node-%04d", i)).toList();
    }

    private static int[] range(int fromInclusive, int toInclusive) {
        return IntStream.rangeClosed(fromInclusive, toInclusive).toArray();
    }

    /** Every live instance owns floor(256/N) or ceil(256/N); every partition has a live owner; counts sum to 256. */
    private static void assertBalanced(PartitionAssignment assignment, Collection<String> live) {
        Set<String> ids = new TreeSet<>(live);
        int n = ids.size();
        int floor = 256 / n;
        int ceil = (256 + n - 1) / n;
        int sum = 0;
        for (String id : ids) {
            int count = assignment.countOf(id);
            assertThat(count).as("count of %s with N=%d", id, n).isBetween(floor, ceil);
            assertThat(assignment.partitionsOf(id).size()).isEqualTo(count);
            sum += count;
        }
        assertThat(sum).isEqualTo(256);
        for (int p = 0; p < 256; p++) {
            assertThat(assignment.ownerOf(p)).as("owner of %d", p).isNotNull().isIn(ids);
        }
    }

    /** Partitions (ascending) whose owner in {@code owners} is {@code id}. */
    private static List<Integer> partitionsIn(List<@Nullable String> owners, String id) {
        return IntStream.range(0, 256).filter(p -> id.equals(owners.get(p))).boxed().toList();
    }

    @Test
    void threeInstancesFromEmptyGetContiguousBlocksInIdOrder() {
        PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, List.of("c", "a", "b"));

        // 256 = 3 * 85 + 1: all tie at zero partitions, so "a" (smallest id) gets the extra one.
        assertThat(assignment.partitionsOf("a")).isEqualTo(OwnedPartitions.of(range(0, 85)));
        assertThat(assignment.partitionsOf("b")).isEqualTo(OwnedPartitions.of(range(86, 170)));
        assertThat(assignment.partitionsOf("c")).isEqualTo(OwnedPartitions.of(range(171, 255)));
        assertThat(assignment.countOf("a")).isEqualTo(86);
        assertThat(assignment.countOf("b")).isEqualTo(85);
        assertThat(assignment.countOf("c")).isEqualTo(85);
        assertThat(assignment.ownerOf(0)).isEqualTo("a");
        assertThat(assignment.ownerOf(85)).isEqualTo("a");
        assertThat(assignment.ownerOf(86)).isEqualTo("b");
        assertThat(assignment.ownerOf(171)).isEqualTo("c");
        assertThat(assignment.ownerOf(255)).isEqualTo("c");
        assertThat(PartitionAssignment.moved(EMPTY, assignment)).isEqualTo(256);
        assertThat(assignment).hasToString("PartitionAssignment{a=86, b=85, c=85}");
    }

    @Test
    void threeToFourTakesTheTailOfEachOldBlock() {
        PartitionAssignment three = PartitionAssignment.compute(EMPTY, List.of("a", "b", "c"));
        PartitionAssignment four = PartitionAssignment.compute(three.owners(), List.of("a", "b", "c", "d"));

        // 256 / 4 = 64 each: every old instance keeps its lowest 64, "d" gets the freed tails.
        assertThat(four.partitionsOf("a")).isEqualTo(OwnedPartitions.of(range(0, 63)));
        assertThat(four.partitionsOf("b")).isEqualTo(OwnedPartitions.of(range(86, 149)));
        assertThat(four.partitionsOf("c")).isEqualTo(OwnedPartitions.of(range(171, 234)));
        int[] tails = IntStream.concat(IntStream.concat(IntStream.rangeClosed(64, 85), IntStream.rangeClosed(150, 170)),
                IntStream.rangeClosed(235, 255)).toArray();
        assertThat(four.partitionsOf("d")).isEqualTo(OwnedPartitions.of(tails));
        assertThat(PartitionAssignment.moved(three.owners(), four)).isEqualTo(64);
    }

    @Test
    void extraPartitionGoesToTheInstanceOwningMostThenToTheSmallestId() {
        List<@Nullable String> owners = new ArrayList<>(EMPTY);
        for (int p = 0; p < 10; p++) {
            owners.set(p, "a");
        }
        for (int p = 100; p < 200; p++) {
            owners.set(p, "b");
        }
        PartitionAssignment assignment = PartitionAssignment.compute(owners, List.of("a", "b", "c"));

        // "b" owns the most, so it gets 86 although "a" sorts first; it keeps 100..185 and frees 186..199.
        assertThat(assignment.countOf("b")).isEqualTo(86);
        assertThat(assignment.partitionsOf("b")).isEqualTo(OwnedPartitions.of(range(100, 185)));
        // Free partitions ascending, instances in id order: "a" fills up to 85 first, then "c".
        int[] a = IntStream.concat(IntStream.rangeClosed(0, 9), IntStream.rangeClosed(10, 84)).toArray();
        assertThat(assignment.partitionsOf("a")).isEqualTo(OwnedPartitions.of(a));
        int[] c = IntStream.concat(IntStream.rangeClosed(85, 99), IntStream.rangeClosed(186, 255)).toArray();
        assertThat(assignment.partitionsOf("c")).isEqualTo(OwnedPartitions.of(c));

        // Tie on current count: the smaller id gets the extra partition.
        List<@Nullable String> tied = new ArrayList<>(EMPTY);
        tied.set(7, "z");
        tied.set(8, "y");
        PartitionAssignment tiedResult = PartitionAssignment.compute(tied, List.of("z", "y", "x"));
        assertThat(tiedResult.countOf("y")).isEqualTo(86);
        assertThat(tiedResult.countOf("z")).isEqualTo(85);
        assertThat(tiedResult.countOf("x")).isEqualTo(85);
    }

    @Test
    void overQuotaInstanceKeepsItsLowestNumberedPartitions() {
        List<@Nullable String> owners = new ArrayList<>(EMPTY);
        int[] scattered = {250, 3, 77, 200, 128, 5};
        for (int p : scattered) {
            owners.set(p, "a");
        }
        for (int p = 0; p < 256; p++) {
            if (owners.get(p) == null) {
                owners.set(p, "b");
            }
        }
        // Two instances, 128 each: "b" owns 250, keeps its lowest 128; "a" keeps all 6 and takes the freed ones.
        PartitionAssignment assignment = PartitionAssignment.compute(owners, List.of("a", "b"));
        List<Integer> bBefore = partitionsIn(owners, "b");
        assertThat(partitionsIn(assignment.owners(), "b")).isEqualTo(bBefore.subList(0, 128));
        for (int p : scattered) {
            assertThat(assignment.ownerOf(p)).isEqualTo("a");
        }
        assertThat(PartitionAssignment.moved(owners, assignment)).isEqualTo(250 - 128);
    }

    @Test
    void balancedForOneToTwentyInstancesFromEmpty() {
        for (int n = 1; n <= 20; n++) {
            List<String> live = nodes(n);
            PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, live);
            assertBalanced(assignment, live);
            assertThat(assignment.owners()).doesNotContainNull().hasSize(256);
            // Exactly 256 % n instances get the larger share.
            int n0 = n;
            long larger = live.stream().filter(id -> assignment.countOf(id) == 256 / n0 + 1).count();
            assertThat(larger).as("N=%d", n).isEqualTo(256 % n == 0 ? 0 : 256 % n);
        }
    }

    @Test
    void singleInstanceOwnsAll() {
        PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, Set.of("only"));
        assertThat(assignment.partitionsOf("only").isAll()).isTrue();
        assertThat(assignment.countOf("only")).isEqualTo(256);
    }

    @Test
    void noLiveInstancesLeavesEveryPartitionUnowned() {
        List<@Nullable String> owners = new ArrayList<>(EMPTY);
        owners.set(0, "dead");
        owners.set(255, "gone");
        PartitionAssignment assignment = PartitionAssignment.compute(owners, List.of());

        assertThat(assignment.owners()).hasSize(256).containsOnlyNulls();
        assertThat(assignment.ownerOf(0)).isNull();
        assertThat(assignment.partitionsOf("dead").isEmpty()).isTrue();
        assertThat(assignment.countOf("dead")).isZero();
        assertThat(PartitionAssignment.moved(owners, assignment)).isEqualTo(2);
        assertThat(assignment).isEqualTo(PartitionAssignment.compute(EMPTY, Set.of()));
        assertThat(assignment).hasToString("PartitionAssignment{unowned=256}");
    }

    @ParameterizedTest
    @ValueSource(ints = {256, 300, 1000})
    void atMost256InstancesOwnOnePartitionEach(int n) {
        List<String> live = nodes(n);
        PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, live);

        assertThat(live.stream().filter(id -> assignment.countOf(id) == 1).count()).isEqualTo(256);
        assertThat(live.stream().filter(id -> assignment.countOf(id) == 0).count()).isEqualTo(n - 256);
        assertThat(assignment.owners()).doesNotContainNull().doesNotHaveDuplicates();
        assertThat(PartitionAssignment.moved(assignment.owners(), PartitionAssignment.compute(assignment.owners(), live)))
                .isZero();
    }

    @Test
    void with300InstancesCurrentOwnersKeepTheirPartition() {
        List<String> live = nodes(300);
        // The owners are the 256 ids that sort LAST, in shuffled partition order: owning beats sorting first.
        List<String> lastIds = new ArrayList<>(live.subList(44, 300));
        Collections.shuffle(lastIds, new Random(300));
        List<@Nullable String> before = new ArrayList<>(lastIds);
        PartitionAssignment after = PartitionAssignment.compute(before, live);
        assertThat(PartitionAssignment.moved(before, after)).isZero();
        assertThat(after.owners()).isEqualTo(before);

        // The plain case: the first 256 own one each.
        List<@Nullable String> first = new ArrayList<>(live.subList(0, 256));
        assertThat(PartitionAssignment.moved(first, PartitionAssignment.compute(first, live))).isZero();
    }

    @Test
    void joiningInstanceOnlyTakesPartitions() {
        for (int n = 1; n <= 19; n++) {
            List<String> old = nodes(n);
            PartitionAssignment before = PartitionAssignment.compute(EMPTY, old);
            // One newcomer sorting before all old ids, one sorting after.
            for (String newcomer : List.of("aaa-new", "zzz-new")) {
                List<String> live = new ArrayList<>(old);
                live.add(newcomer);
                PartitionAssignment after = PartitionAssignment.compute(before.owners(), live);

                assertBalanced(after, live);
                int moved = PartitionAssignment.moved(before.owners(), after);
                int ceil = (256 + n) / (n + 1);
                assertThat(moved).as("N=%d -> %d, %s", n, n + 1, newcomer).isLessThanOrEqualTo(ceil)
                        .isEqualTo(after.countOf(newcomer));
                for (int p = 0; p < 256; p++) {
                    if (!after.owners().get(p).equals(before.owners().get(p))) {
                        assertThat(after.ownerOf(p)).as("moved partition %d, N=%d", p, n).isEqualTo(newcomer);
                    }
                }
            }
        }
    }

    @Test
    void leavingOrDeadInstanceOnlyLosesItsOwnPartitions() {
        for (int n = 2; n <= 20; n++) {
            List<String> all = nodes(n);
            PartitionAssignment before = PartitionAssignment.compute(EMPTY, all);
            for (String gone : all) {
                List<String> live = new ArrayList<>(all);
                live.remove(gone);
                // The stored owners still name the gone instance: it is simply no longer live.
                PartitionAssignment after = PartitionAssignment.compute(before.owners(), live);

                assertBalanced(after, live);
                assertThat(PartitionAssignment.moved(before.owners(), after)).isEqualTo(before.countOf(gone));
                for (int p = 0; p < 256; p++) {
                    String owner = before.ownerOf(p);
                    if (gone.equals(owner)) {
                        assertThat(after.ownerOf(p)).isNotNull().isNotEqualTo(gone);
                    } else {
                        assertThat(after.ownerOf(p)).as("N=%d, %s gone, partition %d", n, gone, p).isEqualTo(owner);
                    }
                }
                for (String id : live) {
                    assertThat(after.countOf(id)).isGreaterThanOrEqualTo(before.countOf(id));
                }
            }
        }
    }

    @Test
    void messyStatesConvergeInOneStepWithMinimalMovement() {
        for (long seed = 0; seed < 500; seed++) {
            Random random = new Random(seed);
            List<String> live = nodes(1 + random.nextInt(30));
            List<@Nullable String> before = randomOwners(random, live);

            PartitionAssignment after = PartitionAssignment.compute(before, live);

            assertBalanced(after, live);
            PartitionAssignment again = PartitionAssignment.compute(after.owners(), live);
            assertThat(PartitionAssignment.moved(after.owners(), again)).as("seed %d", seed).isZero();
            assertThat(again).isEqualTo(after);

            // Each live instance keeps the lowest min(had, gets) of the partitions it had; only the rest move.
            int kept = 0;
            for (String id : live) {
                List<Integer> had = partitionsIn(before, id);
                List<Integer> gets = partitionsIn(after.owners(), id);
                int keeps = Math.min(had.size(), gets.size());
                List<Integer> retained = new ArrayList<>(gets);
                retained.retainAll(had);
                assertThat(retained).as("seed %d, %s", seed, id).isEqualTo(had.subList(0, keeps));
                kept += keeps;
            }
            assertThat(PartitionAssignment.moved(before, after)).as("seed %d", seed).isEqualTo(256 - kept);
        }
    }

    @Test
    void resultDependsOnlyOnTheValuesOfTheInputs() {
        for (long seed = 0; seed < 50; seed++) {
            Random random = new Random(seed);
            List<String> live = new ArrayList<>(nodes(1 + random.nextInt(25)));
            List<@Nullable String> before = randomOwners(random, live);
            PartitionAssignment expected = PartitionAssignment.compute(before, live);

            List<String> shuffled = new ArrayList<>(live);
            Collections.shuffle(shuffled, random);
            List<String> duplicated = new ArrayList<>(shuffled);
            duplicated.addAll(live);
            TreeSet<String> reversed = new TreeSet<>(Comparator.reverseOrder());
            reversed.addAll(live);
            List<Collection<String>> variants = List.of(shuffled, duplicated, new HashSet<>(shuffled),
                    new LinkedHashSet<>(shuffled), reversed, Set.copyOf(shuffled), List.copyOf(shuffled));
            for (Collection<String> variant : variants) {
                PartitionAssignment actual = PartitionAssignment.compute(new ArrayList<>(before), variant);
                assertThat(actual).as("seed %d, %s", seed, variant.getClass()).isEqualTo(expected);
                assertThat(actual.owners()).isEqualTo(expected.owners());
                assertThat(actual.hashCode()).isEqualTo(expected.hashCode());
            }
        }
    }

    @Test
    void differentAssignmentsAreNotEqual() {
        PartitionAssignment ab = PartitionAssignment.compute(EMPTY, List.of("a", "b"));
        PartitionAssignment ac = PartitionAssignment.compute(EMPTY, List.of("a", "c"));
        assertThat(ab).isNotEqualTo(ac).isNotEqualTo(null).isNotEqualTo("a");
    }

    @Test
    void ownersIsUnmodifiableAndNotAffectedByTheInput() {
        List<@Nullable String> input = new ArrayList<>(EMPTY);
        input.set(0, "b");
        PartitionAssignment assignment = PartitionAssignment.compute(input, List.of("a", "b"));
        input.set(0, "a");

        assertThat(assignment.ownerOf(0)).isEqualTo("b");
        assertThatThrownBy(() -> assignment.owners().set(0, "a")).isInstanceOf(UnsupportedOperationException.class);
        assertThat(assignment.partitionsOf("unknown")).isEqualTo(OwnedPartitions.none());
        assertThat(assignment.countOf("unknown")).isZero();
    }

    @Test
    void toStringIsShortForManyInstances() {
        PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, nodes(1000));
        assertThat(assignment.toString()).startsWith("PartitionAssignment{node-0000=1, node-0001=1")
                .endsWith(", ... 240 more}").hasSizeLessThan(300);
    }

    @Test
    void invalidInputIsRejectedNamingTheArgumentAndTheLimit() {
        assertThatThrownBy(() -> PartitionAssignment.compute(Arrays.asList("a", null, "b"), List.of("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("currentOwners must have 256 entries but had 3");
        List<@Nullable String> tooMany = new ArrayList<>(EMPTY);
        tooMany.add(null);
        assertThatThrownBy(() -> PartitionAssignment.compute(tooMany, List.of("a")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("currentOwners must have 256 entries but had 257");
        assertThatThrownBy(() -> PartitionAssignment.compute(EMPTY, Arrays.asList("a", null)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("liveInstances must not contain null or blank ids but contained null");
        assertThatThrownBy(() -> PartitionAssignment.compute(EMPTY, List.of("a", " ")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("liveInstances must not contain null or blank ids but contained \" \"");
        assertThatThrownBy(() -> PartitionAssignment.compute(EMPTY, List.of("")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("liveInstances");
        assertThatThrownBy(() -> PartitionAssignment.compute(null, List.of("a")))
                .isInstanceOf(NullPointerException.class).hasMessage("currentOwners");
        assertThatThrownBy(() -> PartitionAssignment.compute(EMPTY, null))
                .isInstanceOf(NullPointerException.class).hasMessage("liveInstances");

        PartitionAssignment assignment = PartitionAssignment.compute(EMPTY, List.of("a"));
        assertThatThrownBy(() -> assignment.ownerOf(256)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition must be in 0..255 but was 256");
        assertThatThrownBy(() -> assignment.ownerOf(-1)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage("partition must be in 0..255 but was -1");
        assertThatThrownBy(() -> PartitionAssignment.moved(List.of("a"), assignment))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("before must have 256 entries but had 1");
    }

    /** Owners drawn from the live ids, two unknown ids and null. */
    private static List<@Nullable String> randomOwners(Random random, List<String> live) {
        List<@Nullable String> owners = new ArrayList<>();
        for (int p = 0; p < 256; p++) {
            int pick = random.nextInt(live.size() + 3);
            owners.add(pick < live.size() ? live.get(pick) : pick == live.size() ? null : "ghost-" + pick % 2);
        }
        // Sometimes skew heavily towards one instance, so trimming is exercised hard.
        if (random.nextBoolean()) {
            String heavy = live.get(random.nextInt(live.size()));
            for (int p = 0; p < 256; p++) {
                if (random.nextInt(3) == 0) {
                    owners.set(p, heavy);
                }
            }
        }
        return owners;
    }
}
