package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.internal.Futures;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.InFlightRecords.Sending;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublishException;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.OutboxObservation.PublishEnd;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.atomic.AtomicBoolean;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes a {@link PublishBatch}: many lanes' records to one publisher at once, waiting for the broker's
 * acknowledgements together, so throughput is not one round trip per record.
 *
 * <p><b>The ordering rule.</b> At most one record of each lane is in flight: a lane's next record is sent only once
 * the broker acknowledged the one before. So whatever fails (a refusal, a timeout, a cut connection), no later record
 * of an aggregate reaches the broker ahead of an earlier one, and a consumer sees the first occurrence of every
 * record in its aggregate's order. Retries may add a second copy of a record, never reorder first copies.
 *
 * <p><b>Isolation by destination.</b> A destination that never acknowledges (a broker queue under flow control, a
 * stream without quorum) must hold back only its own lanes. So a lane is released as soon as it has nothing in flight
 * and nothing more to send, its completions stored by group commit, not when the whole batch ends; and a batch waiting
 * for acknowledgements holds no worker: it sends what it can, then leaves the worker until an acknowledgement or a
 * deadline wakes it up on a worker again. The lanes in hand, not the workers, bound what is in flight; and a lane whose
 * record is sent is marked waiting (after its burst of sends, with the burst's other lanes) until its acknowledgement
 * comes, so that it does not count against the poll loop's budget either ({@link LaneTable#waiting}): the loop fetches
 * more while the broker confirms, and the records in flight are not bound by one fetch.
 *
 * <p>A batch is confined to one thread at a time: the one that holds its {@code scheduled} flag. The client's
 * callbacks only queue acknowledgements and wake the batch; an acknowledgement that does not come within the
 * publisher's {@link OutboxPublisher#acknowledgementTimeout()} is a retryable {@link PublishException.Reason#TIMEOUT},
 * found by one timer thread for all batches; {@link InFlightRecords} keeps a batch's records in flight and their
 * deadlines.
 */
final class PublishingWorker implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PublishingWorker.class);

    private final HandlerRoutes routes;
    private final PartitionOwnership ownership;
    private final OutboxObservation observation;
    private final OutboxListener listener;
    private final LaneFailures failures;
    private final OutcomeWriter outcomes;
    private final LaneTable lanes;
    private final ScheduledThreadPoolExecutor deadlines;
    /** Batches not finished: those waiting for acknowledgements hold no thread, and a stop that gives up ends them. */
    private final Set<Run> unfinished = ConcurrentHashMap.newKeySet();
    private volatile boolean stopping;

    PublishingWorker(HandlerRoutes routes, PartitionOwnership ownership, OutboxObservation observation,
            OutboxListener listener, LaneFailures failures, OutcomeWriter outcomes, LaneTable lanes) {
        this.routes = routes;
        this.ownership = ownership;
        this.observation = observation;
        this.listener = listener;
        this.failures = failures;
        this.outcomes = outcomes;
        this.lanes = lanes;
        this.deadlines = new ScheduledThreadPoolExecutor(1, DaemonThreads.named("outbox-acknowledgement-timeouts"));
        deadlines.setRemoveOnCancelPolicy(true); // a batch re-arms its timer often: cancelled tasks must not pile up
    }

    /** While set, no further record is sent; those in flight are waited for. */
    void stopping(boolean stopping) {
        this.stopping = stopping;
    }

    /** Publishes the batch, on this worker until it waits; whatever goes wrong, its lanes are released in the end. */
    void run(PublishBatch batch) {
        Run run = new Run(batch);
        unfinished.add(run);
        run.step(true);
    }

    /**
     * After a stop gave up on the workers: ends the batches waiting for acknowledgements now, their lanes released and
     * the records in flight left NEW, instead of at their acknowledgement timeout.
     */
    void abandonWaiting() {
        unfinished.forEach(Run::wakeUp);
    }

    @Override
    public void close() {
        deadlines.shutdownNow();
    }

    /** One batch's state; confined to the thread that holds its scheduled flag. */
    private final class Run implements Runnable {

        private final PublishBatch batch;
        private final Duration timeout;
        private final InFlightRecords inFlight;
        private final List<LaneRun> laneRuns;
        private final Queue<Acknowledgement> acknowledgements = new ConcurrentLinkedQueue<>();
        /** Held by the thread working on the batch, or about to: whoever sets it runs the batch. */
        private final AtomicBoolean scheduled = new AtomicBoolean(true);
        /** Lanes sent a record in this burst: marked waiting together at its end, one wake-up of the loop per burst. */
        private final List<LaneRun> sentInBurst = new ArrayList<>();
        /** The observations of this burst's publish calls: they end once the burst is flushed, covering its send. */
        private final List<PublishEnd> publishEnds = new ArrayList<>();
        private boolean sentSinceFlush;
        private boolean finished;

        Run(PublishBatch batch) {
            this.batch = batch;
            this.timeout = batch.publisher.acknowledgementTimeout();
            this.inFlight = new InFlightRecords(timeout, deadlines, this::wakeUp);
            this.laneRuns = new ArrayList<>(batch.lanes.size());
            batch.lanes.forEach(work -> laneRuns.add(new LaneRun(work)));
        }

        /** Woken on a worker by an acknowledgement or a deadline. */
        @Override
        public void run() {
            step(false);
        }

        /** From the client's callback threads and the timer: runs the batch on a worker unless one has it already. */
        void wakeUp() {
            if (!scheduled.compareAndSet(false, true)) {
                return;
            }
            try {
                batch.pool.execute(this);
            } catch (RejectedExecutionException e) {
                run(); // the workers are gone: the batch gives up here, at once
            }
        }

        private void step(boolean first) {
            try {
                if (first) {
                    laneRuns.forEach(this::advance);
                    flushIfSent();
                }
                proceed();
            } catch (RuntimeException | Error e) {
                log.error("Outbox publisher: a worker failed unexpectedly; the batch's records will be published "
                        + "again", e);
                flushIfSent(); // nothing sent stays buffered on this thread
                for (LaneRun lane : laneRuns) {
                    if (!lane.released) {
                        lane.released = true;
                        lanes.release(lane.work);
                    }
                }
                end();
            }
        }

        /** Settles what arrived, sends what follows, and leaves the thread when only acknowledgements are awaited. */
        private void proceed() {
            while (!finished) {
                Acknowledgement acknowledgement;
                while ((acknowledgement = acknowledgements.poll()) != null) {
                    settle(acknowledgement);
                }
                expireOverdue();
                flushIfSent();
                if (inFlight.pending() == 0) {
                    finish();
                    return;
                }
                if (batch.pool.isShutdown() || Thread.currentThread().isInterrupted() || !inFlight.armTimer()) {
                    log.info("Outbox publisher: interrupted by shutdown with {} record(s) unacknowledged; they stay "
                            + "NEW and will be published again", inFlight.pending());
                    finish();
                    return;
                }
                long nextDeadline = inFlight.timerAt();
                scheduled.set(false); // from here on another thread may have the batch: touch nothing of it
                // an acknowledgement or a deadline that came while the flag was held woke no one: look again
                if (acknowledgements.isEmpty() && System.nanoTime() - nextDeadline < 0
                        || !scheduled.compareAndSet(false, true)) {
                    return;
                }
            }
        }

        private void sendNext(LaneRun lane) {
            while (lane.hasNext()) {
                if (stopping || lane.work.isAbandoned() || Thread.currentThread().isInterrupted()) {
                    return;
                }
                Delivery delivery = lane.work.deliveries.get(lane.next);
                if (!ownership.ownedPartitions().holds(delivery.fence())) {
                    return;
                }
                lane.next++;
                lane.work.calls++;
                HandlerRoute route = routes.routeFor(delivery.record());
                long sentAt = System.nanoTime();
                if (route.publisher() != batch.publisher) {
                    // no longer this publisher's record (its event type was dropped): its route says what happens
                    Throwable failure = callOnce(route, delivery.record());
                    if (failure == null) {
                        lane.done.add(new Completion(delivery, Duration.ofNanos(System.nanoTime() - sentAt)));
                    } else if (!afterFailure(lane, delivery, route, failure, sentAt)) {
                        return;
                    }
                    continue;
                }
                CompletionStage<?> stage;
                try {
                    stage = send(delivery.record());
                } catch (Throwable refused) {
                    if (!afterFailure(lane, delivery, route, Futures.unwrap(refused), sentAt)) {
                        return;
                    }
                    continue;
                }
                Sending sending = inFlight.add(lane, delivery, route, sentAt);
                lane.inFlight = true;
                if (!lane.waiting) {
                    sentInBurst.add(lane);
                }
                sentSinceFlush = true;
                stage.whenComplete((value, failure) -> {
                    acknowledgements.add(new Acknowledgement(sending, value, failure));
                    wakeUp();
                });
                return;
            }
        }

        /** The lane's record in flight was settled: the lane works again, if it was waiting. */
        private void answered(LaneRun lane) {
            lane.inFlight = false;
            if (lane.waiting) {
                lane.waiting = false;
                lanes.answered(lane.work);
            }
        }

        /** Sends the lane's next record; a lane with nothing in flight after that is done, and released now. */
        private void advance(LaneRun lane) {
            sendNext(lane);
            if (!lane.inFlight) {
                release(lane);
            }
        }

        private void release(LaneRun lane) {
            if (lane.released) {
                return;
            }
            lane.released = true;
            if (lane.done.isEmpty()) {
                lanes.release(lane.work);
            } else {
                lane.work.completions = lane.done;
                outcomes.completeAndRelease(lane.work);
            }
        }

        private CompletionStage<?> send(OutboxRecord record) throws Exception {
            List<CompletionStage<?>> sent = new ArrayList<>(1);
            publishEnds.add(observation.observePublish(record, () -> sent.add(batch.publisher.publish(record))));
            if (sent.isEmpty() || sent.get(0) == null) {
                throw new IllegalStateException("publisher " + batch.publisher + " returned no stage for record "
                        + record.getId());
            }
            return sent.get(0);
        }

        private @Nullable Throwable callOnce(HandlerRoute route, OutboxRecord record) {
            try {
                route.handler().process(record);
                return null;
            } catch (Throwable e) {
                return e;
            }
        }

        private void settle(Acknowledgement acknowledgement) {
            Sending sending = acknowledgement.sending;
            if (!inFlight.settle(sending)) {
                log.debug("Outbox record {}: acknowledgement after its timeout; counted as failed already",
                        sending.delivery.id());
                return;
            }
            Duration time = Duration.ofNanos(System.nanoTime() - sending.sentAt);
            LaneRun lane = sending.lane;
            answered(lane);
            if (acknowledgement.failure == null) {
                listener.onPublished(sending.delivery.record(), time,
                        acknowledgement.value == OutboxPublisher.DUPLICATE);
                lane.done.add(new Completion(sending.delivery, time));
            } else {
                // a lane that stops here has nothing more to send: advancing it releases it
                afterFailure(lane, sending.delivery, sending.route, Futures.unwrap(acknowledgement.failure),
                        sending.sentAt);
            }
            advance(lane);
        }

        private void expireOverdue() {
            long now = System.nanoTime();
            Sending overdue;
            while ((overdue = inFlight.pollOverdue(now)) != null) {
                answered(overdue.lane);
                afterFailure(overdue.lane, overdue.delivery, overdue.route,
                        PublishException.timeout(overdue.delivery.record(), timeout), overdue.sentAt);
                advance(overdue.lane);
            }
        }

        /** @return whether the lane goes on with its next record */
        private boolean afterFailure(LaneRun lane, Delivery delivery, HandlerRoute route, Throwable failure,
                long sentAt) {
            Duration time = Duration.ofNanos(System.nanoTime() - sentAt);
            boolean goesOn = failures.afterFailure(lane.work, lane.done, delivery, route, failure, time, true);
            lane.stopped = !goesOn;
            return goesOn;
        }

        /** Marks waiting the lanes of this burst whose record is still in flight, all in one call to the table. */
        private void markWaiting() {
            if (sentInBurst.isEmpty()) {
                return; // most wake-ups of a waiting batch send nothing
            }
            List<LaneWork> marked = new ArrayList<>(sentInBurst.size());
            for (LaneRun lane : sentInBurst) {
                // an acknowledgement settled within the burst left its lane working; a lane sent twice is marked once
                if (lane.inFlight && !lane.waiting) {
                    lane.waiting = true;
                    marked.add(lane.work);
                }
            }
            sentInBurst.clear();
            lanes.waiting(marked);
        }

        /**
         * Ends a burst of sends: its lanes are marked waiting, what the publisher buffered is sent, and the observations
         * of its publish calls end.
         */
        private void flushIfSent() {
            markWaiting();
            RuntimeException flushFailure = null;
            if (sentSinceFlush) {
                sentSinceFlush = false;
                try {
                    batch.publisher.flush();
                } catch (RuntimeException e) {
                    flushFailure = e;
                    log.warn("Outbox publisher {}: flush failed; the acknowledgements will tell", batch.publisher, e);
                }
            }
            try {
                for (PublishEnd end : publishEnds) {
                    end.flushed(flushFailure);
                }
            } finally {
                publishEnds.clear(); // none ended twice, should an observation throw
            }
        }

        /** Releases the lanes still in hand: a record in flight stays NEW, the completions before it are stored. */
        private void finish() {
            laneRuns.forEach(this::release);
            end();
        }

        private void end() {
            finished = true; // and the scheduled flag stays set: nothing wakes the batch any more
            inFlight.cancelTimer();
            unfinished.remove(this);
        }
    }

    private record Acknowledgement(Sending sending, @Nullable Object value, @Nullable Throwable failure) {
    }
}
