package dev.outbox.admin;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.Checks;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.PartitionRecords;
import dev.outbox.spi.RecordAdministration;
import java.time.Clock;
import java.util.Collection;
import java.util.List;
import java.util.LongSummaryStatistics;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator's handle on FAILED records, which hold back their aggregate under stop-on-first-failure: list them,
 * page through them, count them, and retry, skip (so the aggregate continues) or delete one or all matching a filter.
 * Every change is logged at INFO.
 *
 * <p>Record ids and the text criteria of a {@link FailedRecordFilter} are checked before the store sees them, by the
 * rules of {@link OutboxRecord#checkTextField}: a blank value, one longer than its column, one that is not valid UTF-16
 * or one with U+0000 (which PostgreSQL can neither store nor compare) is refused with an
 * {@link IllegalArgumentException} naming the parameter, and nothing is changed.
 */
public final class OutboxAdmin {

    private static final Logger log = LoggerFactory.getLogger(OutboxAdmin.class);
    /** Most records {@link #failedRecords} returns. */
    public static final int MAX_LIST_SIZE = 1000;
    /**
     * Most FAILED records a filtered page examines by default: a filter that matches few of many FAILED records
     * answers a page at a time, each bounded, instead of reading them all (see {@link FailedRecordPage#searchCut()}).
     */
    public static final int EXAMINED_PER_PAGE = 10_000;

    private final RecordAdministration store;
    private final Clock clock;
    private final Runnable afterChange;
    private final int examinedPerPage;

    private OutboxAdmin(Builder builder) {
        this.store = Objects.requireNonNull(builder.store, "OutboxAdmin.builder(): store is required");
        this.clock = builder.clock;
        this.afterChange = builder.afterChange;
        this.examinedPerPage = builder.examinedPerPage;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** FAILED records matching the filter, oldest first; {@code limit} between 1 and {@value #MAX_LIST_SIZE}. */
    public List<OutboxRecord> failedRecords(FailedRecordFilter filter, int limit) {
        return store.findFailed(checked(filter), Checks.inRange("limit", limit, 1, MAX_LIST_SIZE));
    }

    /**
     * {@link #failedRecords}, with the FAILED rows that cannot be read as records among them (rows written by SQL or an
     * older version, which the processor failed: see {@link dev.outbox.spi.UnreadableRow}), at most {@code limit} in
     * all; each list oldest first.
     *
     * @since 0.1.0
     */
    public FetchedRows failedRows(FailedRecordFilter filter, int limit) {
        return store.findFailedRows(checked(filter), Checks.inRange("limit", limit, 1, MAX_LIST_SIZE));
    }

    /**
     * A page of the FAILED records matching the filter, in {@code order}: the first page when {@code after} is null,
     * else the page after the one whose {@link FailedRecordPage#nextCursor()} it is. Pages never repeat or skip a
     * record that stays FAILED; records that fail meanwhile show on a later page when they sort after the cursor. A
     * page with a filter examines at most {@link Builder#examinedPerPage} FAILED records ({@value #EXAMINED_PER_PAGE}
     * by default): when it found fewer matches among them than asked for, it is {@link FailedRecordPage#searchCut()}
     * and its cursor looks on after them.
     * {@code limit} is between 1 and {@value #MAX_LIST_SIZE}; a cursor that no page gave is refused, naming
     * {@code after}.
     *
     * @since 0.1.0
     */
    public FailedRecordPage failedPage(FailedRecordFilter filter, FailedRecordOrder order, @Nullable String after,
            int limit) {
        Objects.requireNonNull(order, "order must not be null");
        FailedRecordFilter checked = checked(filter);
        Long afterSequence = after == null ? null : cursorSequence(after);
        Checks.inRange("limit", limit, 1, MAX_LIST_SIZE);
        Long through = checked.equals(FailedRecordFilter.any()) ? null
                : store.failedSequenceAfter(order, afterSequence, examinedPerPage);
        FetchedRows rows = store.findFailedPage(checked, order, afterSequence, through, limit);
        if (rows.size() >= limit) {
            return new FailedRecordPage(rows, lastSequence(rows, order));
        }
        return through == null ? new FailedRecordPage(rows, null)
                : new FailedRecordPage(rows, Long.toString(through), true);
    }

    /**
     * How many FAILED records match the filter: what {@link #retryAll}, {@link #skipAll} or {@link #deleteAll} would
     * change now, for an operator to confirm.
     *
     * @since 0.1.0
     */
    public long countFailed(FailedRecordFilter filter) {
        return store.countFailed(checked(filter));
    }

    /**
     * How many NEW records wait behind each of the FAILED records {@code recordIds} names, in its lane (its aggregate
     * and handler): with stop-on-first-failure they wait until it is retried or skipped. At most
     * {@value #MAX_LIST_SIZE} ids; records that are not FAILED are left out of the answer.
     *
     * @since 0.1.0
     */
    public Map<String, Long> newBehind(Collection<String> recordIds) {
        Checks.inRange("recordIds.size()", recordIds.size(), 0, MAX_LIST_SIZE);
        return recordIds.isEmpty() ? Map.of() : Map.copyOf(store.countNewBehind(List.copyOf(recordIds)));
    }

    /**
     * The NEW and FAILED records of one partition: counts, the NEW ones not yet due or deferred, and the oldest of
     * each, read now in one query. A partition outside 0 to 255 is refused naming {@code partition}.
     *
     * @since 0.1.0
     */
    public PartitionRecords partitionRecords(int partition) {
        Checks.inRange("partition", partition, 0, PartitionHasher.PARTITION_COUNT - 1);
        return store.partitionRecords(partition, clock.instant());
    }

    /** Makes a FAILED record due again with a fresh retry count; false when it was not FAILED. */
    public boolean retry(String recordId) {
        boolean done = store.retryFailed(requireId(recordId), clock.instant());
        log.info("Outbox admin: retry of record {}: {}", recordId, done ? "reset to NEW" : "not FAILED, unchanged");
        if (done) {
            afterChange.run();
        }
        return done;
    }

    /** {@link #retry} for every FAILED record matching the filter; returns how many. */
    public int retryAll(FailedRecordFilter filter) {
        int count = store.retryAllFailed(checked(filter), clock.instant());
        log.info("Outbox admin: {} FAILED record(s) matching {} reset to NEW", count, filter);
        if (count > 0) {
            afterChange.run();
        }
        return count;
    }

    /**
     * {@link #skip} for every FAILED record matching the filter; returns how many.
     *
     * @since 0.1.0
     */
    public int skipAll(FailedRecordFilter filter) {
        int count = store.skipAllFailed(checked(filter), clock.instant());
        log.info("Outbox admin: {} FAILED record(s) matching {} skipped", count, filter);
        if (count > 0) {
            afterChange.run(); // their aggregates' later records are due now
        }
        return count;
    }

    /**
     * Deletes every FAILED record matching the filter (SKIPPED ones stay); returns how many.
     *
     * @since 0.1.0
     */
    public int deleteAll(FailedRecordFilter filter) {
        int count = store.deleteAllFailed(checked(filter));
        log.info("Outbox admin: {} FAILED record(s) matching {} deleted", count, filter);
        if (count > 0) {
            afterChange.run();
        }
        return count;
    }

    /** Marks a FAILED record SKIPPED so its aggregate continues; false when it was not FAILED. */
    public boolean skip(String recordId) {
        boolean done = store.skipFailed(requireId(recordId), clock.instant());
        log.info("Outbox admin: skip of record {}: {}", recordId, done ? "SKIPPED" : "not FAILED, unchanged");
        if (done) {
            afterChange.run(); // its aggregate's later records are due now
        }
        return done;
    }

    /** Deletes a FAILED or SKIPPED record; false when there was none. */
    public boolean delete(String recordId) {
        boolean done = store.deleteFailed(requireId(recordId));
        log.info("Outbox admin: delete of record {}: {}", recordId, done ? "deleted" : "no FAILED or SKIPPED record");
        if (done) {
            afterChange.run();
        }
        return done;
    }

    private static String requireId(@Nullable String recordId) {
        return OutboxRecord.checkTextField("recordId", recordId, OutboxRecord.MAX_ID_LENGTH);
    }

    /** The filter, once each text criterion given is one a record's field could hold. */
    private static FailedRecordFilter checked(@Nullable FailedRecordFilter filter) {
        Objects.requireNonNull(filter, "filter must not be null");
        checkCriterion("eventType", filter.eventType(), OutboxRecord.MAX_EVENT_TYPE_LENGTH);
        checkCriterion("aggregateId", filter.aggregateId(), OutboxRecord.MAX_AGGREGATE_ID_LENGTH);
        checkCriterion("handlerId", filter.handlerId(), OutboxRecord.MAX_HANDLER_ID_LENGTH);
        checkCriterion("errorContains", filter.errorContains(), OutboxRecord.MAX_ERROR_LENGTH);
        return filter;
    }

    /** The sequence a cursor names: the decimal text {@link #failedPage} gave. */
    private static long cursorSequence(String after) {
        if (!after.isEmpty() && after.length() <= 19 && after.chars().allMatch(c -> c >= '0' && c <= '9')) {
            try {
                return Long.parseLong(after);
            } catch (NumberFormatException beyondLong) {
                // refused below
            }
        }
        throw new IllegalArgumentException("after must be the nextCursor of a page of FAILED records (at most 19 "
                + "digits) but was '" + (after.length() > 40 ? after.substring(0, 40) + "…" : after) + "'");
    }

    /** The sequence of the page's last row (the highest oldest first, the lowest newest first); null if none. */
    private static @Nullable String lastSequence(FetchedRows rows, FailedRecordOrder order) {
        LongSummaryStatistics sequences = new LongSummaryStatistics();
        rows.records().forEach(record -> sequences.accept(Objects.requireNonNull(record.getSequence())));
        rows.unreadable().forEach(row -> {
            if (row.sequence() != null) {
                sequences.accept(row.sequence());
            }
        });
        if (sequences.getCount() == 0) {
            return null;
        }
        return Long.toString(order == FailedRecordOrder.OLDEST_FIRST ? sequences.getMax() : sequences.getMin());
    }

    private static void checkCriterion(String name, @Nullable String value, int maxLength) {
        if (value != null) { // absent: any value
            OutboxRecord.checkTextField(name, value, maxLength);
        }
    }

    /** Assembles an {@link OutboxAdmin}; the store is required. */
    public static final class Builder {
        private @Nullable RecordAdministration store;
        private Clock clock = Clock.systemUTC();
        private Runnable afterChange = () -> { };
        private int examinedPerPage = EXAMINED_PER_PAGE;

        private Builder() {
        }

        public Builder store(RecordAdministration store) {
            this.store = Objects.requireNonNull(store, "store");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        /** Most FAILED records a filtered page examines: at least 1, {@value #EXAMINED_PER_PAGE} by default. */
        public Builder examinedPerPage(int examinedPerPage) {
            this.examinedPerPage = Checks.inRange("examinedPerPage", examinedPerPage, 1, Integer.MAX_VALUE);
            return this;
        }

        /** Run after records were made due again, e.g. {@code processor::wakeUp}. */
        public Builder afterChange(Runnable afterChange) {
            this.afterChange = Objects.requireNonNull(afterChange, "afterChange");
            return this;
        }

        public OutboxAdmin build() {
            return new OutboxAdmin(this);
        }
    }
}
