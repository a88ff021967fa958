package dev.outbox.processing;

import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordTransactions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
 * <p>When the transaction itself fails (it cannot begin or commit: the database is down), every record of the batch
 * stays NEW and runs again later; its handlers' writes committed with their completions or not at all. Whatever
 * happens, every lane of the batch is released once, at its end.
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
     * never run without the guarantee (its records stay NEW, and every try is logged).
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
            throw new IllegalStateException("a route of " + routes + " is transactional, but the routes declare no "
                    + "transactional handler (HandlerRoutes.anyTransactional) and the processor has no record "
                    + "transactions: its records are not run");
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
        Map<LaneWork, Integer> limits = firstLimits(batch);
        List<HandlerFailed> failed = new ArrayList<>();
        List<Completion> committed = List.of();
        List<LanePlan> plan;
        while (!(plan = plan(batch, limits)).isEmpty()) {
            try {
                committed = runInTransaction(plan);
                break;
            } catch (HandlerFailed failure) {
                failed.add(failure);
                limits.put(failure.lane.work, failure.index);
            } catch (CompletionsRefused refusal) {
                if (!cutAtRefused(plan, refusal.refused, limits)) {
                    log.warn("Outbox: the store refused {} completion(s) of records it was not given; the batch's "
                            + "{} record(s) will be processed again", refusal.refused.size(), recordsOf(plan));
                    return;
                }
            } catch (GivenUp givenUp) {
                log.info("Outbox: a transaction of {} record(s) was interrupted by shutdown; they stay NEW and will be "
                        + "processed again", recordsOf(plan));
                return;
            } catch (RuntimeException e) {
                log.warn("Outbox: a transaction of {} record(s) of transactional handlers failed; they stay NEW and "
                        + "will be processed again", recordsOf(plan), e);
                return;
            }
        }
        for (Completion completion : committed) {
            listener.onCompleted(completion.delivery().record(), completion.handlerTime());
        }
        failed.forEach(this::settle);
    }

    /** How many records of each lane may run: the batch's first records, at most {@code maxRecords} in all. */
    private static Map<LaneWork, Integer> firstLimits(TransactionalBatch batch) {
        Map<LaneWork, Integer> limits = new IdentityHashMap<>();
        int room = batch.maxRecords;
        for (LaneWork work : batch.lanes) {
            int limit = Math.min(work.deliveries.size(), room);
            limits.put(work, limit);
            room -= limit;
        }
        return limits;
    }

    /** Each lane's records up to its limit, as long as they may start (the checks of {@link LaneWorker}). */
    private List<LanePlan> plan(TransactionalBatch batch, Map<LaneWork, Integer> limits) {
        List<LanePlan> plan = new ArrayList<>(batch.lanes.size());
        for (LaneWork work : batch.lanes) {
            int limit = limits.get(work);
            int count = 0;
            while (count < limit && mayStart(work, work.deliveries.get(count))) {
                count++;
            }
            limits.put(work, count);
            if (count > 0) {
                plan.add(new LanePlan(work, work.deliveries.subList(0, count)));
            }
        }
        return plan;
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
    private List<Completion> runInTransaction(List<LanePlan> plan) {
        List<List<Completion>> committed = new ArrayList<>(1);
        transactions.inTransaction(() -> {
            List<Completion> done = new ArrayList<>(recordsOf(plan));
            for (LanePlan lane : plan) {
                for (int index = 0; index < lane.deliveries.size(); index++) {
                    done.add(handle(lane, index));
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
        if (committed.isEmpty()) {
            throw new IllegalStateException("record transactions " + transactions + " returned without running the "
                    + "work");
        }
        return committed.get(0);
    }

    /** Calls the handler of the lane's record at {@code index}; throws to roll back when it fails. */
    private Completion handle(LanePlan lane, int index) {
        LaneWork work = lane.work;
        if (work.isAbandoned() || Thread.currentThread().isInterrupted()) {
            throw new GivenUp();
        }
        Delivery delivery = lane.deliveries.get(index);
        work.calls++;
        HandlerRoute route = routes.routeFor(delivery.record());
        long started = System.nanoTime();
        Throwable failure = route.notDeployed() != null ? new HandlerNotDeployedException(route.notDeployed())
                : calls.call(delivery.record(), route.handler(), work);
        Duration handlerTime = Duration.ofNanos(System.nanoTime() - started);
        if (failure != null) {
            throw new HandlerFailed(lane, index, route, failure, handlerTime);
        }
        return new Completion(delivery, handlerTime);
    }

    /**
     * Gives up the partitions of the refused completions and cuts each of their lanes at the record refused.
     *
     * @return whether the plan shrank: false when none of the refused deliveries is planned
     */
    private boolean cutAtRefused(List<LanePlan> plan, List<Delivery> refused, Map<LaneWork, Integer> limits) {
        Map<String, LanePlan> laneById = new HashMap<>();
        Map<String, Integer> indexById = new HashMap<>();
        for (LanePlan lane : plan) {
            for (int index = 0; index < lane.deliveries.size(); index++) {
                laneById.put(lane.deliveries.get(index).id(), lane);
                indexById.put(lane.deliveries.get(index).id(), index);
            }
        }
        boolean cut = false;
        for (Delivery delivery : refused) {
            LanePlan lane = laneById.get(delivery.id());
            if (lane != null) {
                outcomes.refused(delivery);
                limits.merge(lane.work, indexById.get(delivery.id()), Math::min);
                cut = true;
            }
        }
        return cut;
    }

    /** Stores a handler's failure in a transaction of its own; a fallback that takes the record completes it. */
    private void settle(HandlerFailed failed) {
        LaneWork work = failed.lane.work;
        List<Completion> done = new ArrayList<>(1);
        failures.afterFailure(work, done, failed.lane.deliveries.get(failed.index), failed.route, failed.failure,
                failed.handlerTime, false);
        try {
            outcomes.complete(done);
        } catch (RuntimeException e) {
            log.warn("Outbox lane {}: could not store the completion of a record its fallback took; it will be "
                    + "processed again", work.lane, e);
        }
    }

    private static int recordsOf(List<LanePlan> plan) {
        int records = 0;
        for (LanePlan lane : plan) {
            records += lane.deliveries.size();
        }
        return records;
    }

    /** The records of one lane a transaction runs: its first ones, in order. */
    private record LanePlan(LaneWork work, List<Delivery> deliveries) {
    }

    /** A handler failed: rolls the transaction back, and takes its record and the rest of its lane out. */
    private static final class HandlerFailed extends RuntimeException {
        final LanePlan lane;
        final int index;
        final HandlerRoute route;
        final Throwable failure;
        final Duration handlerTime;

        HandlerFailed(LanePlan lane, int index, HandlerRoute route, Throwable failure, Duration handlerTime) {
            super("a handler failed", null, false, false);
            this.lane = lane;
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
