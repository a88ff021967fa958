package dev.outbox.cluster;

import dev.outbox.partition.PartitionAssignment;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionState;
import dev.outbox.spi.PartitionStore;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.IntPredicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rebalance round: reads the live instances and the partition table, computes the {@link PartitionAssignment}
 * (balanced, sticky, the same on every instance) and moves only this instance's partitions toward it: it releases,
 * once idle, what it must give up, and claims what it should have and is free (unowned, or owned by an instance that
 * is not live). Rows it owns in the table without holding them (forgotten after a lost contact, or a previous run's
 * under the same id) are released when the target gives them to others. Claims and releases are conditional on the
 * epoch, so two instances never both win a partition.
 *
 * <p>Quiet when nothing changes: with the same members and the whole table as the target has it, the table is read
 * only every {@value #FULL_REBALANCE_EVERY} rounds, as a safety net; a join, a departure or a death changes the
 * members and makes the next round a full one. Runs on one thread at a time.
 */
final class Rebalancer {

    private static final Logger log = LoggerFactory.getLogger(Rebalancer.class);
    /** With unchanged members, every how many rounds the partition table is read anyway. */
    private static final int FULL_REBALANCE_EVERY = 15;

    private final String instanceId;
    private final InstanceStore instances;
    private final PartitionStore partitions;
    private final PartitionLedger ledger;
    private final Duration staleTimeout;
    private final IntPredicate handling;
    private final Runnable partitionsGained;
    private Map<String, InstanceStatus> lastMembership = Map.of();
    private int quietRounds;
    private int lastLoggedCount = -1;
    private int lastLoggedLive = -1;

    /**
     * @param handling whether a record of a partition is in hand; a withdrawn partition is released once it is not
     * @param partitionsGained told after a round claimed partitions
     */
    Rebalancer(String instanceId, InstanceStore instances, PartitionStore partitions, PartitionLedger ledger,
            Duration staleTimeout, IntPredicate handling, Runnable partitionsGained) {
        this.instanceId = instanceId;
        this.instances = instances;
        this.partitions = partitions;
        this.ledger = ledger;
        this.staleTimeout = staleTimeout;
        this.handling = handling;
        this.partitionsGained = partitionsGained;
    }

    /**
     * One round.
     *
     * @param members the live instances as this instance's heartbeat has just read them, in its transaction; null to
     *     read them here
     */
    void rebalance(@Nullable List<InstanceState> members) {
        List<InstanceState> live = members != null ? members : instances.findLive(staleTimeout);
        Map<String, InstanceStatus> membership = new TreeMap<>();
        Set<String> liveIds = new HashSet<>();
        Set<String> activeIds = new TreeSet<>();
        for (InstanceState instance : live) {
            membership.put(instance.instanceId(), instance.status());
            liveIds.add(instance.instanceId());
            if (instance.status() == InstanceStatus.ACTIVE) {
                activeIds.add(instance.instanceId());
            }
        }
        if (!activeIds.contains(instanceId)) {
            return; // not (yet) registered as live: the heartbeat sees to that
        }
        if (ledger.isSettled() && membership.equals(lastMembership) && ++quietRounds < FULL_REBALANCE_EVERY) {
            return;
        }
        quietRounds = 0;
        lastMembership = membership;
        instances.removeStale(staleTimeout);
        List<PartitionState> rows = partitions.findAll();
        ledger.forgetTakenOver(rows);
        List<@Nullable String> owners = new ArrayList<>(rows.size());
        rows.forEach(row -> owners.add(row.owner()));
        PartitionAssignment target = PartitionAssignment.compute(owners, activeIds);
        ledger.withdraw(target);
        releaseIdle();
        releaseForgotten(target, rows);
        if (claim(target, rows, liveIds) > 0) {
            partitionsGained.run();
        }
        // Settled only once the whole table, as read this round, matches the target: while any instance still moves
        // partitions the target itself can change (it favours current owners), so everyone keeps looking.
        ledger.settle(rows.stream().allMatch(row -> Objects.equals(row.owner(), target.ownerOf(row.partition()))));
        ledger.notifyChanges();
        logChanges(activeIds.size());
    }

    /** Releases every partition the table shows under this instance, counting each in {@code released} at once. */
    void releaseAll(AtomicInteger released) {
        for (PartitionState row : partitions.findAll()) {
            if (instanceId.equals(row.owner()) && partitions.release(row.partition(), row.epoch(), instanceId)) {
                released.incrementAndGet();
            }
        }
    }

    /** Releases the withdrawn partitions that have no record in hand any more. */
    private void releaseIdle() {
        ledger.idleWithdrawn(handling).forEach((partition, epoch) -> {
            partitions.release(partition, epoch, instanceId);
            ledger.released(partition);
        });
    }

    /**
     * Releases the rows the table shows under this instance that the ledger does not hold (forgotten after contact
     * was lost, or held by this instance's previous run under the same id) and that the target gives to others: no
     * other instance may claim a row of a live owner, so left alone they would stay unowned in practice for good.
     * Only once idle, as for a withdrawal; a record still in hand is fenced by the epoch anyway.
     */
    private void releaseForgotten(PartitionAssignment target, List<PartitionState> rows) {
        for (PartitionState row : rows) {
            int partition = row.partition();
            if (instanceId.equals(row.owner()) && !ledger.holds(partition)
                    && !instanceId.equals(target.ownerOf(partition)) && !handling.test(partition)) {
                partitions.release(partition, row.epoch(), instanceId);
            }
        }
    }

    /** Claims what the target gives to this instance and is free; returns how many claims succeeded. */
    private int claim(PartitionAssignment target, List<PartitionState> rows, Set<String> liveIds) {
        int claimed = 0;
        for (PartitionState row : rows) {
            int partition = row.partition();
            if (!instanceId.equals(target.ownerOf(partition)) || ledger.holds(partition)) {
                continue;
            }
            String owner = row.owner();
            boolean claimable = owner == null || owner.equals(instanceId) || !liveIds.contains(owner);
            if (claimable && partitions.claim(partition, row.epoch(), instanceId, staleTimeout)) {
                if (!ledger.claimed(partition, row.epoch() + 1)) {
                    partitions.release(partition, row.epoch() + 1, instanceId); // shutting down meanwhile
                    return claimed;
                }
                claimed++;
            }
        }
        return claimed;
    }

    private void logChanges(int liveCount) {
        int count = ledger.ownedCount();
        if (count != lastLoggedCount || liveCount != lastLoggedLive) {
            lastLoggedCount = count;
            lastLoggedLive = liveCount;
            log.info("Outbox instance {} owns {} of {} partitions; {} active instance(s)", instanceId, count,
                    PartitionHasher.PARTITION_COUNT, liveCount);
        }
    }
}
