package dev.outbox.boot.cluster;

import dev.outbox.partition.PartitionHasher;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * {@code outbox_partition} as read at one moment: the owner (null when free) and epoch of each partition.
 *
 * @param owners owner of each partition, index = partition
 * @param epochs epoch of each partition, index = partition
 */
record PartitionTable(List<String> owners, List<Long> epochs) {

    static final int PARTITIONS = PartitionHasher.PARTITION_COUNT;
    private static final String UNOWNED = "(unowned)";

    static PartitionTable read(JdbcTemplate jdbc) {
        List<String> owners = new ArrayList<>();
        List<Long> epochs = new ArrayList<>();
        jdbc.query("SELECT owner_instance_id, epoch FROM outbox_partition ORDER BY partition_no", rs -> {
            owners.add(rs.getString("owner_instance_id"));
            epochs.add(rs.getLong("epoch"));
        });
        if (owners.size() != PARTITIONS) {
            throw new IllegalStateException("outbox_partition has " + owners.size() + " rows, not " + PARTITIONS);
        }
        return new PartitionTable(owners, epochs);
    }

    String ownerOf(int partition) {
        return owners.get(partition);
    }

    long epochOf(int partition) {
        return epochs.get(partition);
    }

    Set<Integer> partitionsOf(String instanceId) {
        return IntStream.range(0, PARTITIONS).filter(p -> instanceId.equals(owners.get(p))).boxed()
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /** Partitions per owner in id order; free partitions count under "(unowned)". */
    Map<String, Integer> countsByOwner() {
        Map<String, Integer> counts = new TreeMap<>();
        owners.forEach(owner -> counts.merge(owner == null ? UNOWNED : owner, 1, Integer::sum));
        return counts;
    }

    /** Every partition owned, only by these instances, each owning floor(256/n) or ceil(256/n). */
    boolean isBalancedAmong(Collection<String> instanceIds) {
        int n = instanceIds.size();
        int floor = PARTITIONS / n;
        int ceil = (PARTITIONS + n - 1) / n;
        Map<String, Integer> counts = countsByOwner();
        return counts.keySet().equals(new TreeSet<>(instanceIds))
                && counts.values().stream().allMatch(count -> count == floor || count == ceil);
    }

    /** Every one of {@code partitions} has an owner, and it is not {@code formerOwner}. */
    boolean allOwnedByOthersThan(String formerOwner, Set<Integer> partitions) {
        return partitions.stream().map(owners::get).allMatch(owner -> owner != null && !owner.equals(formerOwner));
    }

    /** The partitions whose owner in {@code later} differs from this one. */
    List<Integer> partitionsWithOtherOwnerIn(PartitionTable later) {
        return IntStream.range(0, PARTITIONS).filter(p -> !Objects.equals(ownerOf(p), later.ownerOf(p))).boxed()
                .toList();
    }

    @Override
    public String toString() {
        return "partitions " + countsByOwner();
    }
}
