package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionAssignment;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.PartitionState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** What this instance holds and what the processor may use, changed step by step as the coordinator does. */
class PartitionLedgerTest {

    private static final String ME = "me";
    private static final String OTHER = "other";

    private final List<String> told = new ArrayList<>();
    private final PartitionLedger ledger = new PartitionLedger(ME, (gained, lost) -> told.add(gained + " " + lost));

    /** A target that gives partitions {@code 0..127} to this instance and {@code 128..255} to the other one. */
    private static PartitionAssignment split() {
        return target(128, List.of(ME, OTHER));
    }

    /** A target that gives every partition to this instance. */
    private static PartitionAssignment allMine() {
        return target(256, List.of(ME));
    }

    private static PartitionAssignment target(int mineBelow, List<String> live) {
        List<@Nullable String> owners = new ArrayList<>();
        for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
            owners.add(partition < mineBelow ? ME : OTHER);
        }
        PartitionAssignment target = PartitionAssignment.compute(owners, live);
        // Balanced already, so the (sticky) target is the table as given.
        assertThat(target.owners()).containsExactlyElementsOf(owners);
        return target;
    }

    /** The partition table with {@code row(p)} per partition. */
    private static List<PartitionState> table(IntFunction<PartitionState> row) {
        List<PartitionState> rows = new ArrayList<>();
        for (int partition = 0; partition < PartitionHasher.PARTITION_COUNT; partition++) {
            rows.add(row.apply(partition));
        }
        return rows;
    }

    @Test
    void aClaimedPartitionIsHeldAndDispatchableUnderTheFenceOfItsClaim() {
        assertThat(ledger.dispatchable().isEmpty()).isTrue();

        assertThat(ledger.claimed(3, 7)).isTrue();
        assertThat(ledger.claimed(200, 1)).isTrue();

        assertThat(ledger.holds(3)).isTrue();
        assertThat(ledger.holds(4)).isFalse();
        assertThat(ledger.ownedCount()).isEqualTo(2);
        OwnedPartitions view = ledger.dispatchable();
        assertThat(view.toArray()).containsExactly(3, 200);
        assertThat(view.fenceOf(3)).isEqualTo(Fence.of(3, 7, ME));
        assertThat(view.fenceOf(200)).isEqualTo(Fence.of(200, 1, ME));
        assertThat(view.holds(Fence.of(3, 6, ME))).as("an older epoch").isFalse();
    }

    @Test
    void aClaimWhileClosingIsRefusedAndNotHeldUntilTheLedgerIsReopened() {
        ledger.closing(true);

        assertThat(ledger.claimed(5, 1)).isFalse();
        assertThat(ledger.holds(5)).isFalse();
        assertThat(ledger.dispatchable().contains(5)).isFalse();

        ledger.closing(false);
        assertThat(ledger.claimed(5, 2)).isTrue();
        assertThat(ledger.dispatchable().fenceOf(5)).isEqualTo(Fence.of(5, 2, ME));
    }

    @Test
    void withdrawnPartitionsStayHeldButLeaveTheDispatchableView() {
        for (int partition = 0; partition < 256; partition++) {
            ledger.claimed(partition, 1);
        }

        ledger.withdraw(split());

        assertThat(ledger.holds(200)).as("held until released").isTrue();
        assertThat(ledger.ownedCount()).isEqualTo(128);
        assertThat(ledger.dispatchable().size()).isEqualTo(128);
        assertThat(ledger.dispatchable().contains(127)).isTrue();
        assertThat(ledger.dispatchable().contains(128)).isFalse();
        assertThat(ledger.dispatchable().fenceOf(0)).isEqualTo(Fence.of(0, 1, ME));
    }

    @Test
    void aWithdrawnPartitionTheTargetGivesBackIsDispatchableAgain() {
        ledger.claimed(200, 4);
        ledger.withdraw(split());
        assertThat(ledger.dispatchable().contains(200)).isFalse();

        ledger.withdraw(allMine());

        assertThat(ledger.dispatchable().fenceOf(200)).isEqualTo(Fence.of(200, 4, ME));
        assertThat(ledger.idleWithdrawn(partition -> false)).isEmpty();
    }

    @Test
    void idleWithdrawnListsTheWithdrawnPartitionsWithNoRecordInHandWithTheirEpochs() {
        ledger.claimed(10, 3);
        ledger.claimed(130, 5);
        ledger.claimed(140, 6);
        ledger.claimed(150, 7);
        ledger.withdraw(split());

        Map<Integer, Long> idle = ledger.idleWithdrawn(partition -> partition == 140);

        assertThat(idle).containsExactly(Map.entry(130, 5L), Map.entry(150, 7L));
        assertThat(ledger.idleWithdrawn(partition -> true)).as("all busy").isEmpty();
    }

    @Test
    void aReleasedPartitionIsNeitherHeldNorWithdrawnAnyMore() {
        ledger.claimed(130, 5);
        ledger.claimed(131, 5);
        ledger.withdraw(split());

        ledger.released(130);

        assertThat(ledger.holds(130)).isFalse();
        assertThat(ledger.idleWithdrawn(partition -> false)).containsOnlyKeys(131);
        assertThat(ledger.ownedCount()).isZero();
    }

    @Test
    void forgetTakenOverDropsWhatTheTableShowsUnderAnotherOwnerOrEpoch() {
        ledger.claimed(1, 3);   // the table shows it under another owner
        ledger.claimed(2, 3);   // under us, but a newer epoch: it changed hands meanwhile
        ledger.claimed(3, 3);   // unowned now
        ledger.claimed(4, 3);   // unchanged
        ledger.claimed(200, 3); // unchanged, and withdrawn
        ledger.withdraw(split());

        ledger.forgetTakenOver(table(partition -> switch (partition) {
            case 1 -> new PartitionState(1, OTHER, 4);
            case 2 -> new PartitionState(2, ME, 4);
            case 3 -> new PartitionState(3, null, 3);
            default -> new PartitionState(partition, ME, 3);
        }));

        assertThat(ledger.holds(1)).isFalse();
        assertThat(ledger.holds(2)).isFalse();
        assertThat(ledger.holds(3)).isFalse();
        assertThat(ledger.holds(4)).isTrue();
        assertThat(ledger.dispatchable().toArray()).containsExactly(4);
        assertThat(ledger.idleWithdrawn(partition -> false)).containsOnlyKeys(200);
    }

    @Test
    void aWithdrawnPartitionTakenOverIsNoLongerToBeReleased() {
        ledger.claimed(200, 3);
        ledger.withdraw(split());

        ledger.forgetTakenOver(table(partition -> new PartitionState(partition, OTHER, 4)));

        assertThat(ledger.idleWithdrawn(partition -> false)).isEmpty();
    }

    @Test
    void lostForgetsThePartitionOnlyForTheSameOwnerAndEpoch() {
        ledger.claimed(9, 4);

        ledger.lost(Fence.of(9, 3, ME));
        assertThat(ledger.holds(9)).as("an older epoch: a stale refusal").isTrue();
        ledger.lost(Fence.of(9, 4, OTHER));
        assertThat(ledger.holds(9)).as("another owner's fence").isTrue();
        ledger.lost(Fence.unfenced(9));
        assertThat(ledger.holds(9)).as("unfenced").isTrue();
        ledger.lost(Fence.of(10, 4, ME));
        assertThat(ledger.holds(9)).as("another partition").isTrue();
        assertThat(ledger.dispatchable().contains(9)).isTrue();

        ledger.lost(Fence.of(9, 4, ME));
        assertThat(ledger.holds(9)).isFalse();
        assertThat(ledger.dispatchable().contains(9)).isFalse();
    }

    @Test
    void aLostWithdrawnPartitionIsNotReleasedLater() {
        ledger.claimed(200, 4);
        ledger.withdraw(split());

        ledger.lost(Fence.of(200, 4, ME));

        assertThat(ledger.idleWithdrawn(partition -> false)).isEmpty();
    }

    @Test
    void notifyChangesTellsTheGainedAndLostSetsOncePerChange() {
        ledger.claimed(1, 1);
        ledger.claimed(2, 1);
        ledger.claimed(130, 1);
        ledger.notifyChanges();
        ledger.notifyChanges();
        assertThat(told).containsExactly("[1, 2, 130] []");

        ledger.withdraw(split()); // withdraws 130
        ledger.notifyChanges();
        assertThat(told).containsExactly("[1, 2, 130] []", "[] [130]");

        ledger.lost(Fence.of(1, 1, ME)); // tells at once
        assertThat(told).containsExactly("[1, 2, 130] []", "[] [130]", "[] [1]");
        ledger.notifyChanges();
        assertThat(told).hasSize(3);
    }

    @Test
    void anEpochChangeAloneIsNoChangeOfPartitions() {
        ledger.claimed(1, 1);
        ledger.notifyChanges();
        ledger.claimed(1, 2);
        ledger.notifyChanges();

        assertThat(told).containsExactly("[1] []");
    }

    @Test
    void forgetAllDropsEverythingAndTellsTheListener() {
        ledger.claimed(1, 1);
        ledger.claimed(200, 1);
        ledger.withdraw(split());
        ledger.notifyChanges();

        ledger.forgetAll();

        assertThat(ledger.holds(200)).isFalse();
        assertThat(ledger.dispatchable().isEmpty()).isTrue();
        assertThat(ledger.idleWithdrawn(partition -> false)).isEmpty();
        assertThat(told).containsExactly("[1] []", "[] [1]");
    }

    @Test
    void aThrowingListenerIsIsolatedAndToldOfLaterChangesOnly() {
        List<String> calls = Collections.synchronizedList(new ArrayList<>());
        PartitionLedger failing = new PartitionLedger(ME, (gained, lost) -> {
            calls.add(gained + " " + lost);
            throw new IllegalStateException("listener bug");
        });
        failing.claimed(1, 1);

        assertThatCode(failing::notifyChanges).doesNotThrowAnyException();
        assertThatCode(() -> failing.lost(Fence.of(1, 1, ME))).doesNotThrowAnyException();
        assertThat(failing.holds(1)).as("the loss took effect all the same").isFalse();
        failing.claimed(2, 1);
        failing.notifyChanges();

        assertThat(calls).containsExactly("[1] []", "[] [1]", "[2] []");
    }

    @Test
    void settledOnlyWhenTheTableMatchesAndNothingIsLeftToRelease() {
        ledger.claimed(200, 1);
        ledger.settle(true);
        assertThat(ledger.isSettled()).isTrue();

        ledger.withdraw(split());
        ledger.settle(true);
        assertThat(ledger.isSettled()).as("200 is still to be released").isFalse();

        ledger.released(200);
        ledger.settle(true);
        assertThat(ledger.isSettled()).isTrue();
        ledger.settle(false);
        assertThat(ledger.isSettled()).isFalse();
    }

    @Test
    void aLossOrAResetUnsettles() {
        ledger.claimed(1, 1);
        ledger.settle(true);
        ledger.lost(Fence.of(1, 1, ME));
        assertThat(ledger.isSettled()).isFalse();

        ledger.settle(true);
        ledger.forgetAll();
        assertThat(ledger.isSettled()).isFalse();
    }

    @Test
    void clearForgetsEverythingWithoutTouchingTheClosingFlag() {
        ledger.claimed(1, 1);
        ledger.closing(true);

        ledger.clear();

        assertThat(ledger.dispatchable().isEmpty()).isTrue();
        assertThat(ledger.claimed(2, 1)).isFalse();
        assertThat(ledger.holds(1)).isFalse();
        assertThat(ledger.holds(2)).as("still closing").isFalse();
    }
}
