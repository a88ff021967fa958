package dev.outbox.processing;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * Lanes of one fetch whose routes are transactional, run by one worker in one transaction of the records' database
 * (or a few, when something in it fails): see {@link TransactionalWorker}. A batch holds whole lanes of at most
 * {@code maxRecords} records in all, or one lane longer than that, of which only the first {@code maxRecords} run: the
 * rest stay NEW for a later fetch.
 */
final class TransactionalBatch implements Runnable {

    final List<LaneWork> lanes;
    /** The most records the batch's transaction takes. */
    final int maxRecords;
    private final Consumer<TransactionalBatch> worker;

    TransactionalBatch(List<LaneWork> lanes, int maxRecords, Consumer<TransactionalBatch> worker) {
        if (lanes.isEmpty() || maxRecords < 1) {
            throw new IllegalArgumentException("a batch takes at least one lane and one record, not " + lanes.size()
                    + " lane(s) and " + maxRecords + " record(s)");
        }
        this.lanes = List.copyOf(lanes);
        this.maxRecords = maxRecords;
        this.worker = worker;
    }

    /**
     * The lanes in batches, in fetch order, spread over up to {@code workers} batches so that that many transactions
     * run at once: each batch takes whole lanes until the next would take it past its share of the records (at most
     * {@code maxRecords}); a lane longer than that is a batch of its own.
     */
    static List<TransactionalBatch> chunked(List<LaneWork> lanes, int maxRecords, int workers,
            Consumer<TransactionalBatch> worker) {
        int total = 0;
        for (LaneWork work : lanes) {
            total += work.deliveries.size();
        }
        int share = Math.max(1, Math.min(maxRecords, (total + workers - 1) / Math.max(1, workers)));
        List<TransactionalBatch> batches = new ArrayList<>();
        List<LaneWork> chunk = new ArrayList<>();
        int records = 0;
        for (LaneWork work : lanes) {
            if (!chunk.isEmpty() && records + work.deliveries.size() > share) {
                batches.add(new TransactionalBatch(chunk, maxRecords, worker));
                chunk = new ArrayList<>();
                records = 0;
            }
            chunk.add(work);
            records += work.deliveries.size();
        }
        if (!chunk.isEmpty()) {
            batches.add(new TransactionalBatch(chunk, maxRecords, worker));
        }
        return batches;
    }

    @Override
    public void run() {
        worker.accept(this);
    }
}
