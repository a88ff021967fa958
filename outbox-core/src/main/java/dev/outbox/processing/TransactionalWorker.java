package dev.outbox.processing;

import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.TransactionNotBegunException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs a {@link TransactionalBatch}: the records of many lanes through their transactional handlers in one
 * transaction of the records' database ({@link RecordTransactions}), each lane in order under its partition's fence,
 * and then, in the same transaction, the fenced completion of them all. What the handlers wrote to that database
 * commits exactly when their records complete: once.
 *
 * <p><b>When something fails, the transaction rolls back, and runs again without it.</b> A handler that throws takes
 * its record and the rest of its lane out of the batch; a completion the store refuses (the fence moved, the row
 * changed) takes its lane out from that record on, and gives the partition up. Every other record runs again in a new
 * transaction, its handler called again: its writes to the database were rolled back, so they still happen once, but
 * what a handler does elsewhere (a call over HTTP, a message to a broker) is at-least-once and may repeat. Each
 * re-run has fewer records than the one before, so the batch ends. Once a run has committed (or nothing is left to
 * run), each failure is stored in a transaction of its own through {@link LaneFailures}, as any other worker's; a
 * fallback that takes the record runs there too, outside the handlers' transaction, and its record is completed
 * then. The records after a failed one stay NEW for a later fetch, even without stop-on-first-failure.
 *
 * <p><b>When the transaction itself fails, one fault stays one fault.</b> When it could not begin
 * ({@link TransactionNotBegunException}: the database is down) the batch ends there, its records not stored yet left
 * NEW for a later pass, no attempt counted. When it failed otherwise (at commit, or a statement of the completion),
 * the cause may be one record: a deferred constraint its handler broke, a transaction its handler spoiled (a caught
 * SQL error, rollback-only). Then the records run again in two halves, each a transaction of its own
 * ({@link TransactionPart#halves}), and so on: a lane's later half runs only once its earlier one committed, the
 * halves without the culprit commit, and the one record left that its transaction still fails with has failed an
 * attempt, settled through {@link LaneFailures} with that failure as a handler's is (stored not at all if the database
 * went down meanwhile: it then stays NEW). A batch of n records with one such record takes about 2·log2(n) + 1
 * transactions. Its handlers' writes committed with their completions or not at all. Whatever happens, every lane of
 * the batch is released once, at its end.
 */
final class TransactionalWorker {

    private static final Logger log = LoggerFactory.getLogger(TransactionalWorker.class);

    private final HandlerRoutes routes;
    private final PartitionOwnership ownership;
    private final HandlerCalls calls;
    private final RecordTransactions transactions;
    private final LaneFailures failures;
    private final OutcomeWriter outcomes;
    private final OutboxListener listener;
    private final LaneTable lanes;
    private volatile boolean stopping;

    TransactionalWorker(HandlerRoutes routes, PartitionOwnership ownership, HandlerCalls calls,
            RecordTransactions transactions, LaneFailures failures, OutcomeWriter outcomes, OutboxListener listener,
            LaneTable lanes) {
        this.routes = routes;
        this.ownership = ownership;
        this.calls = calls;
        this.transactions = transactions;
        this.failures = failures;
        this.outcomes = outcomes;
        this.listener = listener;
        this.lanes = lanes;
    }

    /**
     * The transactions the routes' transactional handlers run in: {@code transactions}, or, when the routes declare no
     * transactional handler, a stand-in that runs nothing, so that a route that turns out transactional anyway is
     * never run without the guarantee (it throws {@link TransactionNotBegunException}: its records stay NEW, and every
     * try is logged).
     *
     * @throws IllegalStateException naming the transactional handlers, when there are some and no transactions
     */
    static RecordTransactions required(HandlerRoutes routes, @Nullable RecordTransactions transactions) {
        if (transactions != null) {
            return transactions;
        }
        if (routes.anyTransactional()) {
            Set<String> ids = routes.transactionalHandlerIds();
            throw new IllegalStateException("OutboxProcessor.builder(): handler(s) " + (ids.isEmpty() ? "of " + routes
                    : ids) + " are transactional, which needs recordTransactions(...): transactions of the records' "
                    + "database for them to run in with their records' completions");
        }
        return work -> {
            throw new TransactionNotBegunException("a route of " + routes + " is transactional, but the routes "
                    + "declare no transactional handler (HandlerRoutes.anyTransactional) and the processor has no "
                    + "record transactions: its records are not run", null);
        };
    }

    /** While set, no further transaction starts; the one running finishes. */
    void stopping(boolean stopping) {
        this.stopping = stopping;
    }

    /** Runs the batch; whatever goes wrong, its lanes are released in the end. */
    void run(TransactionalBatch batch) {
        try {
            process(batch);
        } catch (RuntimeException | Error e) {
            log.error("Outbox processor: a transactional worker failed unexpectedly; the batch's records not stored "
                    + "will be processed again", e);
        } finally {
            lanes.releaseAll(batch.lanes);
        }
    }

    private void process(TransactionalBatch batch) {
        runPart(TransactionPart.firstOf(batch), new IdentityHashMap<>(), true);
    }

    /**
     * Runs the part in one transaction, again without what failed in it, or in halves when the transaction failed for
     * a reason of its own; then stores the failures of the records whose lane committed up to them.
     *
     * @param committed how many of each lane's first records have committed (none when absent); updated
     * @param whole whether the part is the batch's first one, not a half: its failure is logged louder
     * @return false when the batch ends here: its records not stored yet stay NEW
     */
    private boolean runPart(TransactionPart part, Map<LaneWork, Integer> committed, boolean whole) {
        List<HandlerFailed> failed = new ArrayList<>();
        TransactionPart planned;
        while (!(planned = part.startable(work -> committed.getOrDefault(work, 0), this::mayStart)).isEmpty()) {
            long started = System.nanoTime();
            try {
                commit(planned, committed);
                break;
            } catch (HandlerFailed failure) {
                failed.add(failure);
                part = planned.cutAt(failure.work, failure.index);
            } catch (CompletionsRefused refusal) {
                TransactionPart cut = cutAtRefused(planned, refusal.refused);
                if (cut == null) {
                    log.warn("Outbox: the store refused {} completion(s) of records it was not given; the batch's "
                            + "records not stored yet will be processed again", refusal.refused.size());
                    return false;
                }
                part = cut;
            } catch (GivenUp givenUp) {
                log.info("Outbox: a transaction of {} was interrupted by shutdown; the batch's records not stored yet "
                        + "stay NEW and will be processed again", planned);
                return false;
            } catch (TransactionNotBegunException e) {
                log.warn("Outbox: a transaction of {} of transactional handlers could not begin; the batch's records "
                        + "not stored yet stay NEW and will be processed again", planned, e);
                return false;
            } catch (RuntimeException e) {
                if (!failedOfItsOwn(planned, committed, e, Duration.ofNanos(System.nanoTime() - started), whole)) {
                    return false;
                }
                break;
            }
        }
        for (HandlerFailed failure : failed) {
            if (committed.getOrDefault(failure.work, 0) == failure.index) { // else it waits behind its lane
                settle(failure);
            }
        }
        return true;
    }

    /** Runs the records in one transaction, and reports their completions once it has committed. */
    private void commit(TransactionPart part, Map<LaneWork, Integer> committed) {
        List<Completion> done = runInTransaction(part);
        for (TransactionPart.Segment segment : part.segments()) {
            committed.put(segment.work(), segment.to());
        }
        for (Completion completion : done) {
            listener.onCompleted(completion.delivery().record(), completion.handlerTime());
        }
    }

    /**
     * The part's transaction failed for a reason of its own, maybe one of its records (a constraint checked at commit,
     * a transaction its handler spoiled), maybe the database: each half runs on its own, and a single record's
     * failure is its failed attempt, stored as a handler's would be (stored not at all when the database is down).
     *
     * @return false when the batch ends here
     */
    private boolean failedOfItsOwn(TransactionPart part, Map<LaneWork, Integer> committed, RuntimeException failure,
            Duration time, boolean whole) {
        if (part.records() == 1) {
            TransactionPart.Segment only = part.segments().get(0);
            Delivery delivery = only.deliveries().get(0);
            log.debug("Outbox record {}: its transaction failed; that is its failed attempt", delivery.id(), failure);
            settle(only.work(), delivery, routes.routeFor(delivery.record()), failure, time);
            return true;
        }
        if (whole) {
            log.warn("Outbox: a transaction of {} of transactional handlers failed; running its records in smaller "
                    + "ones to find the one it fails with", part, failure);
        } else {
            log.debug("Outbox: a transaction of {} failed; running it in halves", part, failure);
        }
        for (TransactionPart half : part.halves()) {
            if (!runPart(half, committed, false)) {
                return false;
            }
        }
        return true;
    }

    private boolean mayStart(LaneWork work, Delivery delivery) {
        return !stopping && !work.isAbandoned() && !Thread.currentThread().isInterrupted()
                && ownership.ownedPartitions().holds(delivery.fence());
    }

    /**
     * Runs the planned records and their completion in one transaction.
     *
     * @return the completions, committed
     * @throws HandlerFailed when a handler failed: rolled back
     * @throws CompletionsRefused when the store refused a completion: rolled back
     */
    private List<Completion> runInTransaction(TransactionPart part) {
        List<List<Completion>> committed = new ArrayList<>(1);
        transactions.inTransaction(() -> {
            List<Completion> done = new ArrayList<>(part.records());
            for (TransactionPart.Segment segment : part.segments()) {
                for (int index = segment.from(); index < segment.to(); index++) {
                    done.add(handle(segment.work(), index));
                }
            }
            List<Delivery> deliveries = new ArrayList<>(done.size());
            done.forEach(completion -> deliveries.add(completion.delivery()));
            List<Delivery> refused = outcomes.writeCompletions(deliveries);
            if (!refused.isEmpty()) {
                throw new CompletionsRefused(refused);
            }
            committed.clear();
            committed.add(done);
        });
        if (committed.isEmpty()) { // a broken implementation: nothing to blame a record for
            throw new TransactionNotBegunException("record transactions " + transactions + " returned without "
                    + "running the work", null);
        }
        return committed.get(0);
    }

    /** Calls the handler of the lane's record at {@code index}; throws to roll back when it fails. */
    private Completion handle(LaneWork work, int index) {
        if (work.isAbandoned() || Thread.currentThread().isInterrupted()) {
            throw new GivenUp();
        }
        Delivery delivery = work.deliveries.get(index);
        work.calls = Math.max(work.calls, index + 1); // records handed, not calls: a re-run hands the same again
        HandlerRoute route = routes.routeFor(delivery.record());
        long started = System.nanoTime();
        Throwable failure = route.notDeployed() != null ? new HandlerNotDeployedException(route.notDeployed())
                : calls.call(delivery.record(), route.handler(), work);
        Duration handlerTime = Duration.ofNanos(System.nanoTime() - started);
        if (failure != null) {
            throw new HandlerFailed(work, index, route, failure, handlerTime);
        }
        return new Completion(delivery, handlerTime);
    }

    /**
     * Gives up the partitions of the refused completions and cuts each of their lanes at the record refused.
     *
     * @return the part cut, or null when none of the refused deliveries is in it
     */
    private @Nullable TransactionPart cutAtRefused(TransactionPart part, List<Delivery> refused) {
        TransactionPart cut = part;
        for (Delivery delivery : refused) {
            TransactionPart.Segment segment = part.segmentOf(delivery);
            if (segment != null) {
                outcomes.refused(delivery);
                cut = cut.cutAt(segment.work(), part.indexOf(delivery));
            }
        }
        return cut == part ? null : cut;
    }

    private void settle(HandlerFailed failed) {
        settle(failed.work, failed.work.deliveries.get(failed.index), failed.route, failed.failure,
                failed.handlerTime);
    }

    /** Stores a failed attempt in a transaction of its own; a fallback that takes the record completes it. */
    private void settle(LaneWork work, Delivery delivery, HandlerRoute route, Throwable failure, Duration time) {
        List<Completion> done = new ArrayList<>(1);
        failures.afterFailure(work, done, delivery, route, failure, time, false);
        try {
            outcomes.complete(done);
        } catch (RuntimeException e) {
            log.warn("Outbox lane {}: could not store the completion of a record its fallback took; it will be "
                    + "processed again", work.lane, e);
        }
    }

    /** A handler failed: rolls the transaction back, and takes its record and the rest of its lane out. */
    private static final class HandlerFailed extends RuntimeException {
        final LaneWork work;
        /** The record's index in its lane's records. */
        final int index;
        final HandlerRoute route;
        final Throwable failure;
        final Duration handlerTime;

        HandlerFailed(LaneWork work, int index, HandlerRoute route, Throwable failure, Duration handlerTime) {
            super("a handler failed", null, false, false);
            this.work = work;
            this.index = index;
            this.route = route;
            this.failure = failure;
            this.handlerTime = handlerTime;
        }
    }

    /** The store refused completions: rolls the transaction back, and takes those lanes out from those records on. */
    private static final class CompletionsRefused extends RuntimeException {
        final List<Delivery> refused;

        CompletionsRefused(List<Delivery> refused) {
            super("completions refused", null, false, false);
            this.refused = List.copyOf(refused);
        }
    }

    /** A stop gave up on the work: rolls the transaction back, and ends the batch. */
    private static final class GivenUp extends RuntimeException {
        GivenUp() {
            super("given up by a stop", null, false, false);
        }
    }
}
