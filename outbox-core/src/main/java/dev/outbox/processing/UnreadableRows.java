package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.UnreadableRow;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Isolates the rows a fetch read that cannot be records (poison rows: see {@link UnreadableRow}), so that they never
 * stop the other lanes or partitions: each is marked FAILED by the owner of its stored partition under that
 * partition's fence, conditional on its id, status and partition as read, with an error naming the row and what is
 * wrong; a row no write can reach (no id, no partition in range) is left as it is and reported once. Under
 * stop-on-first-failure the later records of the row's lane in the same fetch are not dispatched: the row is an
 * earlier, unfinished record of their aggregate, and once FAILED it holds them back like any other.
 */
final class UnreadableRows {

    private static final Logger log = LoggerFactory.getLogger(UnreadableRows.class);
    /** Rows left as they are and already reported; forgotten past this many, so it cannot grow without bound. */
    private static final int MAX_REMEMBERED = 10_000;

    private final RecordStore store;
    private final PartitionOwnership ownership;
    private final OutboxListener listener;
    private final boolean stopOnFirstFailure;
    private final Set<String> reported = ConcurrentHashMap.newKeySet();

    UnreadableRows(RecordStore store, PartitionOwnership ownership, OutboxListener listener,
            boolean stopOnFirstFailure) {
        this.store = store;
        this.ownership = ownership;
        this.listener = listener;
        this.stopOnFirstFailure = stopOnFirstFailure;
    }

    /** Fails or reports the fetch's unreadable rows; returns the records that may be dispatched. */
    List<OutboxRecord> isolate(FetchedRows rows, OwnedPartitions owned) {
        if (rows.unreadable().isEmpty()) {
            return rows.records();
        }
        // The earliest unreadable row of each lane: records of the lane after it wait.
        Map<Lane, Long> heldFrom = new HashMap<>();
        for (UnreadableRow row : rows.unreadable()) {
            settle(row, owned);
            Lane lane = laneOf(row);
            if (stopOnFirstFailure && lane != null) {
                long from = row.sequence() == null ? Long.MIN_VALUE : row.sequence();
                heldFrom.merge(lane, from, Math::min);
            }
        }
        if (heldFrom.isEmpty()) {
            return rows.records();
        }
        List<OutboxRecord> dispatchable = new ArrayList<>(rows.records().size());
        for (OutboxRecord record : rows.records()) {
            Long from = heldFrom.get(Lane.of(record));
            if (from == null || (record.getSequence() != null && record.getSequence() < from)) {
                dispatchable.add(record);
            }
        }
        return dispatchable;
    }

    private void settle(UnreadableRow row, OwnedPartitions owned) {
        Integer partition = row.partition();
        String unreachable = row.id() == null ? "its id cannot be read"
                : row.status() == null ? "its status cannot be read"
                : partition == null ? "its partition_no cannot be read"
                : partition < 0 || partition >= PartitionHasher.PARTITION_COUNT
                        ? "its partition_no " + partition + " is outside 0.." + (PartitionHasher.PARTITION_COUNT - 1)
                                + ", which no instance owns"
                : !owned.contains(partition) ? "its partition " + partition + " is not owned here" : null;
        if (unreachable != null) {
            leave(row, unreachable);
            return;
        }
        Fence fence = owned.fenceOf(Objects.requireNonNull(partition));
        String error = errorOf(row);
        boolean failed;
        try {
            failed = store.failUnreadable(row, fence, error);
        } catch (RuntimeException e) {
            // Read again by a later fetch, and tried again then.
            log.warn("Outbox: could not mark the unreadable row {} FAILED ({}); trying again at a later fetch",
                    row.id(), row.detail(), e);
            return;
        }
        if (!failed) {
            log.info("Outbox: the unreadable row {} ({}) was changed by someone else meanwhile, or the partition has a "
                    + "new owner; not marked FAILED", row.id(), fence);
            ownership.lost(fence);
            return;
        }
        log.error("Outbox row {} (partition_no {}) cannot be read as a record and is now FAILED, without any handler "
                + "call: {}{}", row.id(), partition, row.detail(),
                stopOnFirstFailure && laneOf(row) != null ? "; later records of its aggregate wait" : "");
        listener.onUnreadableRow(row, true);
    }

    /** No write can reach the row: it stays as it is, reported once. */
    private void leave(UnreadableRow row, String why) {
        String key = row.id() != null ? row.id() : row.detail();
        if (reported.size() >= MAX_REMEMBERED) {
            reported.clear();
        }
        if (!reported.add(key)) {
            return;
        }
        log.error("Outbox: a row of the record table cannot be read as a record ({}), and cannot be marked FAILED "
                + "since {}; it is left as it is and skipped. Fix or delete it by SQL. Row: id {}, sequence_no {}, "
                + "aggregate_id {}", row.detail(), why, row.id(), row.sequence(), row.aggregateId());
        listener.onUnreadableRow(row, false);
    }

    /** The error stored on the row: what is wrong, and what to do. */
    static String errorOf(UnreadableRow row) {
        return ErrorText.truncate(("Unreadable outbox row " + row.id() + " (" + row.problem() + "): " + row.detail()
                + ". No handler was called. Correct the row by SQL and retry it with OutboxAdmin, or skip or delete it")
                .replace('\u0000', '\uFFFD'), OutboxRecord.MAX_ERROR_LENGTH);
    }

    /** The row's lane when its aggregate id is readable; a row without one holds back nothing. */
    private static @Nullable Lane laneOf(UnreadableRow row) {
        String aggregateId = row.aggregateId();
        if (aggregateId == null || aggregateId.isBlank()) {
            return null;
        }
        String handlerId = row.handlerId();
        return new Lane(aggregateId, handlerId == null || handlerId.isEmpty() ? null : handlerId);
    }
}
