package dev.outbox.processing;

import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one lane's records in order on a worker thread: each under its partition's fence, through its route's handler,
 * within the handler timeout. A success waits for the completion writer; a failure goes to {@link LaneFailures}, which
 * stores it at once, after the completions ahead of it, and says whether the lane goes on. A record whose route is not
 * deployed here is not called: it fails as a {@link HandlerNotDeployedException}, which defers it.
 *
 * <p><b>Interrupt hygiene.</b> After each call the worker's interrupt flag is cleared, whoever set it (the handler, or
 * the timeout), unless a stop gave up on the work: a stale flag would make storing the outcome fail, and the record
 * would run again without its failure ever being recorded.
 */
final class LaneWorker {

    private static final Logger log = LoggerFactory.getLogger(LaneWorker.class);

    private final HandlerRoutes routes;
    private final PartitionOwnership ownership;
    private final HandlerCalls calls;
    private final LaneFailures failures;
    private final OutcomeWriter outcomes;
    private final LaneTable lanes;
    private volatile boolean stopping;

    LaneWorker(HandlerRoutes routes, PartitionOwnership ownership, HandlerCalls calls, LaneFailures failures,
            OutcomeWriter outcomes, LaneTable lanes) {
        this.routes = routes;
        this.ownership = ownership;
        this.calls = calls;
        this.failures = failures;
        this.outcomes = outcomes;
        this.lanes = lanes;
    }

    /** While set, workers finish the record in hand and start no other. */
    void stopping(boolean stopping) {
        this.stopping = stopping;
    }

    /** Runs the lane; whatever goes wrong, the lane is released in the end. */
    void run(LaneWork work) {
        try {
            process(work);
        } catch (RuntimeException | Error e) {
            log.error("Outbox processor: a worker failed unexpectedly", e);
            lanes.release(work);
        }
    }

    private void process(LaneWork work) {
        List<Completion> done = new ArrayList<>(work.deliveries.size());
        try {
            for (Delivery delivery : work.deliveries) {
                if (stopping || work.isAbandoned() || Thread.currentThread().isInterrupted()
                        || !ownership.ownedPartitions().holds(delivery.fence())) {
                    break;
                }
                work.calls++;
                HandlerRoute route = routes.routeFor(delivery.record());
                long started = System.nanoTime();
                Throwable failure = route.notDeployed() != null
                        ? new HandlerNotDeployedException(route.notDeployed())
                        : calls.call(delivery.record(), route.handler(), work);
                Duration handlerTime = Duration.ofNanos(System.nanoTime() - started);
                if (failure == null) {
                    done.add(new Completion(delivery, handlerTime));
                } else if (!failures.afterFailure(work, done, delivery, route, failure, handlerTime, false)) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            // routing, the fence check or storing a completion failed: the records not stored stay NEW
            log.warn("Outbox lane {}: its run failed; its records not yet stored will be processed again", work.lane,
                    e);
            done.clear();
        }
        if (done.isEmpty()) {
            lanes.release(work);
        } else {
            work.completions = done;
            outcomes.completeAndRelease(work);
        }
    }
}
