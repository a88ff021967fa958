package dev.outbox.partition;

import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.jspecify.annotations.Nullable;

/**
 * The target owner of each of the {@value PartitionHasher#PARTITION_COUNT} partitions, computed from the owners stored
 * today and the ids of the live instances.
 *
 * <p>Every instance runs {@link #compute} on the same inputs and gets the same answer, then claims or releases only its
 * own partitions. The rules, for {@code N} distinct live instances:
 * <ol>
 *   <li>Quotas: each instance gets {@code 256 / N}; the {@code 256 % N} instances that own the most partitions now
 *       (ties: smaller id first, by {@link String#compareTo}) get one more. With more than 256 instances, the 256
 *       chosen this way get one partition each and the rest none.</li>
 *   <li>Trim: an instance owning more than its quota keeps its lowest-numbered partitions and frees the rest.</li>
 *   <li>Fill: free partitions (unowned, owned by an instance that is not live, or freed) go in ascending order to the
 *       instances below quota, taken in ascending id order, each filled to its quota before the next.</li>
 * </ol>
 *
 * <p>Guarantees: the result is <em>deterministic</em> (it depends only on the input values, not on the order or type
 * of the collection of ids); <em>balanced</em> (every live instance owns {@code floor(256/N)} or {@code ceil(256/N)},
 * and every partition has an owner when {@code N > 0}); and <em>sticky</em> (a partition owned by a live instance within
 * its quota never moves, so a joining instance only takes partitions, a leaving instance's partitions are the only ones
 * that move, and computing again on the result changes nothing). Instances are immutable.
 */
public final class PartitionAssignment {

    private static final int COUNT = PartitionHasher.PARTITION_COUNT;
    private static final int FREE = -1;

    /** Owner of each partition, unmodifiable, {@value PartitionHasher#PARTITION_COUNT} entries. */
    private final List<@Nullable String> owners;

    private PartitionAssignment(@Nullable String[] owners) {
        this.owners = Collections.unmodifiableList(Arrays.asList(owners));
    }

    /**
     * The target assignment.
     *
     * @param currentOwners the stored owner of each partition (index = partition, null = unowned); exactly 256 entries.
     *     Owners not in {@code liveInstances} count as unowned.
     * @param liveInstances the ids of the live instances; no null or blank ids, duplicates ignored
     */
    public static PartitionAssignment compute(List<@Nullable String> currentOwners, Collection<String> liveInstances) {
        checkSize(currentOwners, "currentOwners");
        String[] ids = distinctSortedIds(liveInstances);
        int n = ids.length;
        Map<String, Integer> indexOf = new TreeMap<>();
        for (int i = 0; i < n; i++) {
            indexOf.put(ids[i], i);
        }

        int[] owner = new int[COUNT];
        int[] current = new int[n];
        for (int p = 0; p < COUNT; p++) {
            String id = currentOwners.get(p);
            Integer index = id == null ? null : indexOf.get(id);
            owner[p] = index == null ? FREE : index;
            if (index != null) {
                current[index]++;
            }
        }

        // Quotas: base for all, one extra for the first (256 % n) by current count descending, then id ascending.
        int[] quota = new int[n];
        if (n > 0) {
            int base = COUNT / n;
            int extra = COUNT % n;
            int[] ranking = IntStream.range(0, n).boxed()
                    .sorted(Comparator.<Integer>comparingInt(i -> -current[i]).thenComparingInt(i -> i))
                    .mapToInt(Integer::intValue)
                    .toArray();
            for (int rank = 0; rank < n; rank++) {
                quota[ranking[rank]] = base + (rank < extra ? 1 : 0);
            }
        }

        // Trim: keep the lowest-numbered partitions up to the quota, free the rest.
        int[] owned = new int[n];
        for (int p = 0; p < COUNT; p++) {
            int i = owner[p];
            if (i != FREE) {
                if (owned[i] < quota[i]) {
                    owned[i]++;
                } else {
                    owner[p] = FREE;
                }
            }
        }

        // Fill: free partitions in ascending order, instances in id order, each up to its quota.
        // The quotas sum to 256 (when n > 0), so the free partitions are exactly enough.
        int next = 0;
        for (int i = 0; i < n; i++) {
            while (owned[i] < quota[i]) {
                while (owner[next] != FREE) {
                    next++;
                }
                owner[next] = i;
                owned[i]++;
            }
        }

        @Nullable String[] result = new String[COUNT];
        for (int p = 0; p < COUNT; p++) {
            result[p] = owner[p] == FREE ? null : ids[owner[p]];
        }
        return new PartitionAssignment(result);
    }

    /**
     * The number of partitions whose owner in {@code after} differs from {@code before} (an unowned partition getting
     * an owner counts as a move too).
     */
    public static int moved(List<@Nullable String> before, PartitionAssignment after) {
        checkSize(before, "before");
        Objects.requireNonNull(after, "after");
        int moved = 0;
        for (int p = 0; p < COUNT; p++) {
            if (!Objects.equals(before.get(p), after.owners.get(p))) {
                moved++;
            }
        }
        return moved;
    }

    /** The owner of {@code partition}, {@code 0..255}; null only when there are no live instances. */
    public @Nullable String ownerOf(int partition) {
        if (partition < 0 || partition >= COUNT) {
            throw new IllegalArgumentException("partition must be in 0.." + (COUNT - 1) + " but was " + partition);
        }
        return owners.get(partition);
    }

    /** The partitions assigned to {@code instanceId}; empty for an id that owns none or is unknown. */
    public OwnedPartitions partitionsOf(String instanceId) {
        Objects.requireNonNull(instanceId, "instanceId");
        return OwnedPartitions.of(IntStream.range(0, COUNT).filter(p -> instanceId.equals(owners.get(p))).toArray());
    }

    /** The number of partitions assigned to {@code instanceId}. */
    public int countOf(String instanceId) {
        Objects.requireNonNull(instanceId, "instanceId");
        return (int) owners.stream().filter(instanceId::equals).count();
    }

    /** The owner of every partition (index = partition), unmodifiable, 256 entries. */
    public List<@Nullable String> owners() {
        return owners;
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof PartitionAssignment that && owners.equals(that.owners);
    }

    @Override
    public int hashCode() {
        return owners.hashCode();
    }

    /** Partition counts per owning instance in id order, e.g. {@code PartitionAssignment{a=86, b=85, c=85}}. */
    @Override
    public String toString() {
        Map<String, Integer> counts = new TreeMap<>();
        int unowned = 0;
        for (String id : owners) {
            if (id == null) {
                unowned++;
            } else {
                counts.merge(id, 1, Integer::sum);
            }
        }
        StringBuilder text = new StringBuilder("PartitionAssignment{");
        int shown = 0;
        for (Map.Entry<String, Integer> entry : counts.entrySet()) {
            if (shown == 16) {
                text.append(", ... ").append(counts.size() - shown).append(" more");
                break;
            }
            text.append(shown++ == 0 ? "" : ", ").append(entry.getKey()).append('=').append(entry.getValue());
        }
        if (unowned > 0) {
            text.append(shown == 0 ? "" : ", ").append("unowned=").append(unowned);
        }
        return text.append('}').toString();
    }

    private static void checkSize(List<@Nullable String> owners, String name) {
        Objects.requireNonNull(owners, name);
        if (owners.size() != COUNT) {
            throw new IllegalArgumentException(
                    name + " must have " + COUNT + " entries but had " + owners.size());
        }
    }

    private static String[] distinctSortedIds(Collection<String> liveInstances) {
        Objects.requireNonNull(liveInstances, "liveInstances");
        TreeSet<String> ids = new TreeSet<>();
        for (@Nullable String id : liveInstances) {
            if (id == null || id.isBlank()) {
                throw new IllegalArgumentException("liveInstances must not contain null or blank ids but contained "
                        + (id == null ? "null" : "\"" + id + "\""));
            }
            ids.add(id);
        }
        return ids.toArray(new String[0]);
    }
}
