package dev.outbox.testing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/** What {@link InMemoryRecordStore} reads of its FAILED records for an operator; the caller holds the store's lock. */
final class FailedRecordReads {

    private FailedRecordReads() {
    }

    /** The FAILED records matching the filter, in sequence order. */
    static List<OutboxRecord> matching(Collection<OutboxRecord> records, FailedRecordFilter filter) {
        return records.stream().filter(r -> r.getStatus() == OutboxRecordStatus.FAILED && filter.matches(r))
                .sorted(bySequence()).toList();
    }

    /** A keyset page of them, as {@link dev.outbox.spi.RecordAdministration#findFailedPage} reads it. */
    static FetchedRows page(Collection<OutboxRecord> records, FailedRecordFilter filter, FailedRecordOrder order,
            @Nullable Long afterSequence, @Nullable Long throughSequence, int limit) {
        boolean newestFirst = order == FailedRecordOrder.NEWEST_FIRST;
        return FetchedRows.of(inOrderAfter(matching(records, filter), order, afterSequence)
                .filter(r -> throughSequence == null
                        || (newestFirst ? sequence(r) >= throughSequence : sequence(r) <= throughSequence))
                .limit(limit).toList());
    }

    /** The sequence of the {@code n}th FAILED record after the cursor in the order; null when there are fewer. */
    static @Nullable Long sequenceAfter(Collection<OutboxRecord> records, FailedRecordOrder order,
            @Nullable Long afterSequence, int n) {
        return inOrderAfter(matching(records, FailedRecordFilter.any()), order, afterSequence).skip(n - 1L)
                .findFirst().map(FailedRecordReads::sequence).orElse(null);
    }

    private static Stream<OutboxRecord> inOrderAfter(List<OutboxRecord> failed, FailedRecordOrder order,
            @Nullable Long afterSequence) {
        boolean newestFirst = order == FailedRecordOrder.NEWEST_FIRST;
        return failed.stream().sorted(newestFirst ? bySequence().reversed() : bySequence())
                .filter(r -> afterSequence == null
                        || (newestFirst ? sequence(r) < afterSequence : sequence(r) > afterSequence));
    }

    /** For each FAILED record among the ids, the NEW records of its aggregate and handler after it. */
    static Map<String, Long> newBehind(Map<String, OutboxRecord> records, Collection<String> failedIds) {
        Map<String, Long> counts = new HashMap<>();
        for (String id : failedIds) {
            OutboxRecord failed = records.get(id);
            if (failed != null && failed.getStatus() == OutboxRecordStatus.FAILED) {
                counts.put(id, records.values().stream().filter(r -> r.getStatus() == OutboxRecordStatus.NEW
                        && r.getAggregateId().equals(failed.getAggregateId())
                        && Objects.equals(r.getHandlerId(), failed.getHandlerId())
                        && sequence(r) > sequence(failed)).count());
            }
        }
        return counts;
    }

    static Comparator<OutboxRecord> bySequence() {
        return Comparator.comparing(FailedRecordReads::sequence);
    }

    private static long sequence(OutboxRecord stored) {
        return Objects.requireNonNull(stored.getSequence(), "the sequence of a stored record");
    }
}
