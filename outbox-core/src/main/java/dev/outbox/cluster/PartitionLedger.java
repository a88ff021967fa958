package dev.outbox.cluster;

import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionAssignment;
import dev.outbox.spi.PartitionListener;
import dev.outbox.spi.PartitionState;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What this instance holds in the partition table, with the epoch of each claim, and which of those partitions the
 * processor may use: all held ones but those being released. A partition to give up is first withdrawn from the
 * processor; it is released once no record of it is in hand. Tells the {@link PartitionListener} what changed, once
 * per change. Thread-safe: the heartbeat, the rebalance and the processor's refused writes all change it.
 */
final class PartitionLedger {

    private static final Logger log = LoggerFactory.getLogger(PartitionLedger.class);

    private final String instanceId;
    private final PartitionListener listener;
    /** Partition → epoch of every partition held in the table, those being released included. */
    private final Map<Integer, Long> held = new HashMap<>();
    /** Held partitions withdrawn from the processor, to be released once idle. */
    private final Set<Integer> releasing = new HashSet<>();
    private volatile OwnedPartitions dispatchable = OwnedPartitions.none();
    /** The partitions the listener was last told of. */
    private OwnedPartitions notified = OwnedPartitions.none();
    /** Whether the last full rebalance found the whole table as its target has it, with nothing to release. */
    private boolean settled;
    private boolean closing;

    PartitionLedger(String instanceId, PartitionListener listener) {
        this.instanceId = instanceId;
        this.listener = listener;
    }

    /** What the processor may use now, each partition under the fence of its claim. */
    OwnedPartitions dispatchable() {
        return dispatchable;
    }

    /** A refused write showed that another instance has claimed the partition: it is gone at once. */
    synchronized void lost(Fence fence) {
        Long epoch = held.get(fence.partition());
        if (epoch != null && epoch == fence.epoch() && instanceId.equals(fence.owner())) {
            settled = false;
            held.remove(fence.partition());
            releasing.remove(fence.partition());
            publish();
            log.info("Outbox instance {} lost partition {} (epoch {}) to another instance", instanceId,
                    fence.partition(), fence.epoch());
            notifyChanges();
        }
    }

    /** Contact was lost, so others may have claimed anything: forget it all and claim afresh. */
    synchronized void forgetAll() {
        settled = false;
        if (!held.isEmpty()) {
            log.warn("Outbox instance {} drops its {} partition(s) after losing contact; it claims them anew",
                    instanceId, held.size());
        }
        clear();
        notifyChanges();
    }

    /** Forgets the partitions the table shows under another owner or epoch: taken over while we were away. */
    synchronized void forgetTakenOver(List<PartitionState> rows) {
        boolean changed = held.entrySet().removeIf(entry -> {
            PartitionState row = rows.get(entry.getKey());
            return !instanceId.equals(row.owner()) || row.epoch() != entry.getValue();
        });
        if (changed) {
            releasing.retainAll(held.keySet());
            publish();
        }
    }

    /** Withdraws from the processor what the target gives to others; takes back what it gives to us again. */
    synchronized void withdraw(PartitionAssignment target) {
        for (int partition : held.keySet()) {
            if (instanceId.equals(target.ownerOf(partition))) {
                releasing.remove(partition);
            } else {
                releasing.add(partition);
            }
        }
        publish();
    }

    /** The withdrawn partitions with no record in hand ({@code handling} false), with their epochs. */
    synchronized Map<Integer, Long> idleWithdrawn(IntPredicate handling) {
        Map<Integer, Long> idle = new TreeMap<>();
        for (int partition : releasing) {
            if (!handling.test(partition)) {
                idle.put(partition, held.get(partition));
            }
        }
        return idle;
    }

    /** The partition was released in the table. */
    synchronized void released(int partition) {
        held.remove(partition);
        releasing.remove(partition);
    }

    synchronized boolean holds(int partition) {
        return held.containsKey(partition);
    }

    /**
     * The partition was claimed under {@code epoch}; false when this instance is closing and must give it back.
     */
    synchronized boolean claimed(int partition, long epoch) {
        if (closing) {
            return false;
        }
        held.put(partition, epoch);
        publish();
        return true;
    }

    /** Records whether the table as just read matches the target; settled only with nothing left to release. */
    synchronized void settle(boolean tableMatchesTarget) {
        settled = tableMatchesTarget && releasing.isEmpty();
    }

    synchronized boolean isSettled() {
        return settled;
    }

    /** Partitions held, those being released included. */
    synchronized int heldCount() {
        return held.size();
    }

    /** Partitions held and not being released. */
    synchronized int ownedCount() {
        return held.size() - releasing.size();
    }

    /** From now on claims are given back; see {@link #claimed}. False reopens the ledger for a restart. */
    synchronized void closing(boolean closing) {
        this.closing = closing;
    }

    /** Forgets every partition; the table is left as it is. */
    synchronized void clear() {
        held.clear();
        releasing.clear();
        publish();
    }

    /** Tells the listener how the partitions changed since it was last told. */
    synchronized void notifyChanges() {
        OwnedPartitions now = dispatchable;
        Set<Integer> gained = new TreeSet<>();
        now.stream().filter(partition -> !notified.contains(partition)).forEach(gained::add);
        Set<Integer> lost = new TreeSet<>();
        notified.stream().filter(partition -> !now.contains(partition)).forEach(lost::add);
        notified = now;
        if (!gained.isEmpty() || !lost.isEmpty()) {
            try {
                listener.onPartitionsChanged(gained, lost);
            } catch (RuntimeException e) {
                log.warn("Outbox partition listener failed", e);
            }
        }
    }

    /** Makes the processor's view match what is held minus what is being released. Caller holds the lock. */
    private void publish() {
        Map<Integer, Long> view = new HashMap<>(held);
        view.keySet().removeAll(releasing);
        dispatchable = OwnedPartitions.fenced(instanceId, view);
    }
}
