package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.Fence;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneTable.Claim;
import dev.outbox.spi.DeferredRecordsQuery;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.FetchedRows;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Reads the due records of the owned partitions and hands each lane not in hand to a worker, every record under its
 * partition's fence at the time of the fetch. Lanes that go to a publisher are handed over together, one
 * {@link PublishBatch} per publisher, so that their records are published at once; so are lanes of transactional
 * handlers, in {@link TransactionalBatch}es of up to {@link ProcessingOptions#transactionGroupSize()} records, spread
 * over up to {@link ProcessingOptions#concurrency()} of them, each run in one transaction with their completions
 * ({@link TransactionalWorker}). Records of handlers this instance
 * lacks are set aside and looked at apart ({@link DeferredHandlers}). Rows that cannot be records are failed apart
 * ({@link UnreadableRows}) and never stop the others; so are rows of a status the library does not know, which no due
 * fetch reads, found by a rare look of their own. Fetches never overlap: the lane table's race guard watches one fetch
 * at a time.
 */
final class Dispatcher {

    /**
     * How often the owned partitions are searched for rows whose status the library does not know (written by SQL):
     * no due fetch reads them, and they are rare, so a look a minute (and one at the first fetch) finds them soon
     * enough without adding to every fetch.
     */
    static final Duration UNKNOWN_STATUS_LOOK_INTERVAL = Duration.ofMinutes(1);

    private final RecordStore store;
    private final PartitionOwnership ownership;
    private final Clock clock;
    private final boolean headOfAggregateOnly;
    private final LaneTable lanes;
    private final WorkerPool workers;
    private final LaneWorker worker;
    private final HandlerRoutes routes;
    private final PublishingWorker publishingWorker;
    private final TransactionalWorker transactionalWorker;
    private final int transactionGroupSize;
    /** How many transactional batches a fetch's lanes are spread over, to run at once. */
    private final int concurrency;
    private final DeferredHandlers deferred;
    private final UnreadableRows unreadable;
    private final ReentrantLock fetchLock = new ReentrantLock();
    /** Under the fetch lock. */
    private final FetchFloor fetchFloor = new FetchFloor();
    /** Under the fetch lock; null before the first look. */
    private @Nullable Instant lastUnknownStatusLook;

    Dispatcher(RecordStore store, PartitionOwnership ownership, Clock clock, ProcessingOptions options,
            LaneTable lanes, WorkerPool workers, LaneWorker worker, HandlerRoutes routes,
            PublishingWorker publishingWorker, TransactionalWorker transactionalWorker, OutboxListener listener) {
        this.store = store;
        this.ownership = ownership;
        this.clock = clock;
        this.headOfAggregateOnly = options.stopOnFirstFailure();
        this.deferred = new DeferredHandlers(options);
        this.unreadable = new UnreadableRows(store, ownership, listener, options.stopOnFirstFailure());
        this.lanes = lanes;
        this.workers = workers;
        this.worker = worker;
        this.routes = routes;
        this.publishingWorker = publishingWorker;
        this.transactionalWorker = transactionalWorker;
        this.transactionGroupSize = options.transactionGroupSize();
        this.concurrency = options.concurrency();
    }

    /**
     * Fetches up to {@code limit} due records and dispatches their lanes; when it is time, looks at up to
     * {@code limit} records of handlers this instance lacks too, and dispatches those lanes (to be deferred or failed).
     *
     * @throws RuntimeException what the store threw; what the due fetch read is dispatched even when the look fails
     */
    Fetch fetchAndDispatch(int limit) {
        fetchLock.lock();
        try {
            OwnedPartitions owned = ownership.ownedPartitions();
            if (owned.isEmpty()) {
                return Fetch.STORE_NOT_ASKED;
            }
            Instant now = clock.instant();
            if (fetchFloor.readsHighestAssigned(System.nanoTime())) {
                store.highestAssignedSequence()
                        .ifPresent(highest -> fetchFloor.highestAssigned(highest, System.nanoTime()));
            }
            long startNanos = System.nanoTime();
            Long floor = fetchFloor.floor(owned, startNanos);
            Fetch due = fetchAndDispatch(owned, () -> {
                FetchedRows rows = store.findDue(new DueRecordsQuery(owned, now, limit, headOfAggregateOnly,
                        deferred.setAside(), floor));
                fetchFloor.fetched(owned, floor, startNanos, System.nanoTime(), rows);
                return rows;
            });
            Fetch swept = sweepBelowTheFloor(owned, now, limit, floor);
            lookForUnknownStatuses(owned, now, limit);
            if (!deferred.lookDue(now, due.fetched() < limit)) {
                return due.and(swept);
            }
            Fetch look = fetchAndDispatch(owned, () -> store.findDeferralsDue(new DeferredRecordsQuery(owned,
                    deferred.setAside(), now, deferred.maxDeferralCutoff(now), limit, headOfAggregateOnly)));
            deferred.looked(now, look.fetched() >= limit);
            return due.and(swept).and(look);
        } finally {
            fetchLock.unlock();
        }
    }

    /** The next stretch below the floor, when a sweep runs ({@link BelowFloorSweep}). */
    private Fetch sweepBelowTheFloor(OwnedPartitions owned, Instant now, int limit, @Nullable Long floor) {
        BelowFloorSweep.Piece piece = fetchFloor.sweepPiece(floor, System.nanoTime());
        if (piece == null) {
            return Fetch.NONE;
        }
        long startNanos = System.nanoTime();
        Fetch swept = fetchAndDispatch(owned, () -> {
            FetchedRows rows = store.findDue(new DueRecordsQuery(owned, now, limit, headOfAggregateOnly,
                    deferred.setAside(), piece.fromSequence(), piece.toSequence()));
            fetchFloor.swept(piece, startNanos, System.nanoTime(), rows, limit);
            return rows;
        });
        return fetchFloor.sweeping() ? swept.sweepGoesOn() : swept;
    }

    /** Fails the rows of a status the library does not know, every {@link #UNKNOWN_STATUS_LOOK_INTERVAL}. */
    private void lookForUnknownStatuses(OwnedPartitions owned, Instant now, int limit) {
        Instant last = lastUnknownStatusLook;
        if (last != null && now.isBefore(last.plus(UNKNOWN_STATUS_LOOK_INTERVAL))) {
            return;
        }
        lastUnknownStatusLook = now;
        unreadable.isolate(store.findUnknownStatusRows(owned, limit), owned);
    }

    private Fetch fetchAndDispatch(OwnedPartitions owned, Supplier<FetchedRows> read) {
        lanes.beginFetch();
        try {
            FetchedRows rows = read.get();
            List<OutboxRecord> records = unreadable.isolate(rows, owned);
            ExecutorService pool = workers.current();
            Claim claim = lanes.claim(byLane(records), (lane, deliveries) -> new LaneWork(lane,
                    fenced(deliveries, owned), pool, worker::run));
            dispatch(claim.taken(), pool);
            return new Fetch(rows.size(), claim.skipped(), claim.skippedReleased(), claim.taken());
        } finally {
            lanes.endFetch();
        }
    }

    /** The records by lane, in fetch order. */
    private static Map<Lane, List<OutboxRecord>> byLane(List<OutboxRecord> due) {
        Map<Lane, List<OutboxRecord>> byLane = new LinkedHashMap<>();
        for (OutboxRecord record : due) {
            byLane.computeIfAbsent(Lane.of(record), lane -> new ArrayList<>()).add(record);
        }
        return byLane;
    }

    /** A dispatched lane's records under their partition's fence; skipped lanes are never fenced. */
    private static List<Delivery> fenced(List<OutboxRecord> records, OwnedPartitions owned) {
        Fence fence = owned.fenceOf(records.get(0).getPartition());
        List<Delivery> deliveries = new ArrayList<>(records.size());
        for (OutboxRecord record : records) {
            deliveries.add(Delivery.of(record, fence));
        }
        return deliveries;
    }

    private void dispatch(List<LaneWork> taken, ExecutorService pool) {
        Map<HandlerRoute, List<LaneWork>> toPublishers = new LinkedHashMap<>();
        List<LaneWork> transactional = new ArrayList<>();
        for (LaneWork work : taken) {
            HandlerRoute route = routes.routeFor(work.deliveries.get(0).record());
            deferred.routed(work.lane.handlerId(), route.notDeployed() != null);
            if (route.publisher() != null) {
                toPublishers.computeIfAbsent(route, r -> new ArrayList<>()).add(work);
                continue;
            }
            if (route.transactional()) {
                transactional.add(work);
                continue;
            }
            try {
                pool.execute(work);
            } catch (RejectedExecutionException e) {
                lanes.release(work); // a stop gave up on the workers meanwhile; the records stay NEW
            }
        }
        toPublishers.forEach((route, works) -> {
            try {
                pool.execute(new PublishBatch(route, works, pool, publishingWorker::run));
            } catch (RejectedExecutionException e) {
                works.forEach(lanes::release);
            }
        });
        for (TransactionalBatch batch : TransactionalBatch.chunked(transactional, transactionGroupSize, concurrency,
                transactionalWorker::run)) {
            try {
                pool.execute(batch);
            } catch (RejectedExecutionException e) {
                lanes.releaseAll(batch.lanes);
            }
        }
    }

    /**
     * What one fetch did: rows read, rows left because their lane was in hand or released meanwhile (and whether any
     * for the latter reason), the lanes handed to workers, and whether a sweep below the floor goes on (the next
     * fetch should not wait).
     */
    record Fetch(int fetched, int skipped, boolean skippedReleased, List<LaneWork> dispatched, boolean sweeping) {
        /** Nothing fetched because nothing is owned: the store was not asked, so this says nothing of its health. */
        static final Fetch STORE_NOT_ASKED = new Fetch(0, 0, false, List.of(), false);
        /** No fetch. */
        static final Fetch NONE = new Fetch(0, 0, false, List.of(), false);

        Fetch(int fetched, int skipped, boolean skippedReleased, List<LaneWork> dispatched) {
            this(fetched, skipped, skippedReleased, dispatched, false);
        }

        /** Both fetches as one. */
        Fetch and(Fetch other) {
            if (other == NONE) {
                return this;
            }
            List<LaneWork> both = new ArrayList<>(dispatched);
            both.addAll(other.dispatched);
            return new Fetch(fetched + other.fetched, skipped + other.skipped,
                    skippedReleased || other.skippedReleased, both, sweeping || other.sweeping);
        }

        Fetch sweepGoesOn() {
            return new Fetch(fetched, skipped, skippedReleased, dispatched, true);
        }
    }
}
