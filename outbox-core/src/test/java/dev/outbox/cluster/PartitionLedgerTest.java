package dev.outbox.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionAssignment;
import dev.outbox.spi.PartitionState;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** What an instance holds, what its processor may use, and what its listener is told. */
class PartitionLedgerTest {

    private final List<String> told = new ArrayList<>();
    private final PartitionLedger ledger = new PartitionLedger("a", (gained, lost) -> told.add(gained + " " + lost));

    /** A balanced target: "a" keeps 0..127, "b" 128..255. */
    private static PartitionAssignment halves() {
        List<@Nullable String> owners = new ArrayList<>(Collections.nCopies(256, null));
        for (int partition = 0; partition < 256; partition++) {
            owners.set(partition, partition < 128 ? "a" : "b");
        }
        return PartitionAssignment.compute(owners, List.of("a", "b"));
    }

    @Test
    void claimedPartitionsAreDispatchableUnderTheFenceOfTheirClaim() {
        ledger.claimed(3, 7);
        ledger.claimed(4, 1);

        OwnedPartitions view = ledger.dispatchable();
        assertThat(view.toArray()).containsExactly(3, 4);
        assertThat(view.fenceOf(3)).isEqualTo(Fence.of(3, 7, "a"));
        assertThat(view.holds(Fence.of(3, 6, "a"))).as("an older claim").isFalse();
        assertThat(ledger.ownedCount()).isEqualTo(2);
    }

    @Test
    void aWithdrawnPartitionLeavesTheViewAndIsReleasedOnlyOnceIdle() {
        for (int partition = 0; partition < 256; partition++) {
            ledger.claimed(partition, 1);
        }
        ledger.withdraw(halves());

        assertThat(ledger.dispatchable().size()).isEqualTo(128);
        assertThat(ledger.dispatchable().contains(200)).isFalse();
        assertThat(ledger.idleWithdrawn(partition -> partition == 200)).as("200 has a record in hand")
                .doesNotContainKey(200).containsEntry(201, 1L).hasSize(127);
        ledger.released(201);
        assertThat(ledger.holds(201)).isFalse();
        assertThat(ledger.holds(200)).isTrue();
        assertThat(ledger.ownedCount()).isEqualTo(128);
    }

    @Test
    void aLossCountsOnlyForTheSameOwnerAndEpoch() {
        ledger.claimed(9, 4);

        ledger.lost(Fence.of(9, 3, "a"));
        ledger.lost(Fence.of(9, 4, "b"));
        ledger.lost(Fence.unfenced(9));
        assertThat(ledger.holds(9)).isTrue();

        ledger.lost(Fence.of(9, 4, "a"));
        assertThat(ledger.holds(9)).isFalse();
        assertThat(ledger.dispatchable().contains(9)).isFalse();
    }

    @Test
    void partitionsTheTableShowsUnderAnotherOwnerOrEpochAreForgotten() {
        ledger.claimed(1, 2);
        ledger.claimed(2, 2);
        ledger.claimed(3, 2);
        List<PartitionState> rows = new ArrayList<>();
        for (int partition = 0; partition < 256; partition++) {
            rows.add(new PartitionState(partition, partition == 1 ? "a" : partition == 2 ? "b" : "a",
                    partition == 3 ? 3 : 2));
        }

        ledger.forgetTakenOver(rows);

        assertThat(ledger.dispatchable().toArray()).containsExactly(1);
    }

    @Test
    void aClosingLedgerGivesClaimsBack() {
        ledger.closing(true);
        assertThat(ledger.claimed(5, 1)).isFalse();
        assertThat(ledger.holds(5)).isFalse();

        ledger.closing(false);
        assertThat(ledger.claimed(5, 1)).isTrue();
    }

    @Test
    void theListenerIsToldEachChangeOnceAndAThrowingOneDoesNotBreakTheLedger() {
        ledger.claimed(1, 1);
        ledger.claimed(2, 1);
        ledger.notifyChanges();
        ledger.notifyChanges();
        ledger.lost(Fence.of(2, 1, "a"));
        ledger.forgetAll();

        assertThat(told).containsExactly("[1, 2] []", "[] [2]", "[] [1]");

        PartitionLedger throwing = new PartitionLedger("a", (gained, lost) -> {
            throw new IllegalStateException("broken listener");
        });
        throwing.claimed(1, 1);
        throwing.notifyChanges();
        assertThat(throwing.dispatchable().contains(1)).isTrue();
    }
}
