package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.internal.Futures;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.publish.OutboxPublisher;
import dev.outbox.publish.PublishException;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
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
 * <p>One thread runs the whole batch: it sends the head of every lane, then takes acknowledgements as they arrive (the
 * client's callbacks only queue them), storing failures at once and sending each lane's next record. An acknowledgement
 * that does not come within the publisher's {@link OutboxPublisher#acknowledgementTimeout()} is a retryable
 * {@link PublishException.Reason#TIMEOUT}. Completions are stored by group commit when the batch ends.
 *
 * <p>Longer than the engine's other parts on purpose: sending, settling acknowledgements and expiring deadlines work
 * on one batch's state, confined to one thread, and read best as the one loop they are.
 */
final class PublishingWorker {

    private static final Logger log = LoggerFactory.getLogger(PublishingWorker.class);

    private final HandlerRoutes routes;
    private final PartitionOwnership ownership;
    private final OutboxObservation observation;
    private final OutboxListener listener;
    private final AttemptSettler settler;
    private final OutcomeWriter outcomes;
    private final LaneTable lanes;
    private final boolean stopOnFirstFailure;
    private volatile boolean stopping;

    PublishingWorker(HandlerRoutes routes, PartitionOwnership ownership, OutboxObservation observation,
            OutboxListener listener, AttemptSettler settler, OutcomeWriter outcomes, LaneTable lanes,
            boolean stopOnFirstFailure) {
        this.routes = routes;
        this.ownership = ownership;
        this.observation = observation;
        this.listener = listener;
        this.settler = settler;
        this.outcomes = outcomes;
        this.lanes = lanes;
        this.stopOnFirstFailure = stopOnFirstFailure;
    }

    /** While set, no further record is sent; those in flight are waited for. */
    void stopping(boolean stopping) {
        this.stopping = stopping;
    }

    /** Publishes the batch; whatever goes wrong, its lanes are released in the end. */
    void run(PublishBatch batch) {
        try {
            new Run(batch).publishAll();
        } catch (RuntimeException | Error e) {
            log.error("Outbox publisher: a worker failed unexpectedly; the batch's records will be published again", e);
            batch.lanes.forEach(lanes::release);
        }
    }

    /** One batch's state; confined to the worker thread. */
    private final class Run {

        private final PublishBatch batch;
        private final Duration timeout;
        private final long timeoutNanos;
        private final List<LaneRun> laneRuns;
        private final BlockingQueue<Acknowledgement> acknowledgements = new LinkedBlockingQueue<>();
        /** In send order, which is deadline order; settled entries are dropped lazily. */
        private final ArrayDeque<Sending> inFlight = new ArrayDeque<>();
        private int pending;
        private boolean sentSinceFlush;

        Run(PublishBatch batch) {
            this.batch = batch;
            this.timeout = batch.publisher.acknowledgementTimeout();
            this.timeoutNanos = nanos(timeout);
            this.laneRuns = new ArrayList<>(batch.lanes.size());
            batch.lanes.forEach(work -> laneRuns.add(new LaneRun(work)));
        }

        void publishAll() {
            laneRuns.forEach(this::sendNext);
            flushIfSent();
            while (pending > 0) {
                Acknowledgement acknowledgement;
                try {
                    acknowledgement = acknowledgements.poll(untilNextDeadline(), TimeUnit.NANOSECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    log.info("Outbox publisher: interrupted by shutdown with {} record(s) unacknowledged; they stay "
                            + "NEW and will be published again", pending);
                    break;
                }
                if (acknowledgement == null) {
                    expireOverdue();
                } else {
                    do {
                        settle(acknowledgement);
                    } while ((acknowledgement = acknowledgements.poll()) != null);
                }
                flushIfSent();
            }
            finish();
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
                Sending sending = new Sending(lane, delivery, route, sentAt, sentAt + timeoutNanos);
                inFlight.addLast(sending);
                pending++;
                sentSinceFlush = true;
                stage.whenComplete((value, failure) -> acknowledgements.add(
                        new Acknowledgement(sending, value, failure)));
                return;
            }
        }

        private CompletionStage<?> send(OutboxRecord record) throws Exception {
            List<CompletionStage<?>> sent = new ArrayList<>(1);
            observation.observeProcessing(record, () -> sent.add(batch.publisher.publish(record)));
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
            if (sending.settled) {
                log.debug("Outbox record {}: acknowledgement after its timeout; counted as failed already",
                        sending.delivery.id());
                return;
            }
            sending.settled = true;
            pending--;
            Duration time = Duration.ofNanos(System.nanoTime() - sending.sentAt);
            LaneRun lane = sending.lane;
            if (acknowledgement.failure == null) {
                listener.onPublished(sending.delivery.record(), time,
                        acknowledgement.value == OutboxPublisher.DUPLICATE);
                lane.done.add(new Completion(sending.delivery, time));
                sendNext(lane);
            } else if (afterFailure(lane, sending.delivery, sending.route, Futures.unwrap(acknowledgement.failure),
                    sending.sentAt)) {
                sendNext(lane);
            }
        }

        private void expireOverdue() {
            long now = System.nanoTime();
            Sending oldest;
            while ((oldest = inFlight.peekFirst()) != null && (oldest.settled || now - oldest.deadline >= 0)) {
                inFlight.pollFirst();
                if (!oldest.settled) {
                    oldest.settled = true;
                    pending--;
                    if (afterFailure(oldest.lane, oldest.delivery, oldest.route,
                            PublishException.timeout(oldest.delivery.record(), timeout), oldest.sentAt)) {
                        sendNext(oldest.lane);
                    }
                }
            }
        }

        private long untilNextDeadline() {
            Sending oldest;
            while ((oldest = inFlight.peekFirst()) != null && oldest.settled) {
                inFlight.pollFirst();
            }
            return oldest == null ? 0 : Math.max(0, oldest.deadline - System.nanoTime());
        }

        /**
         * Stores a failed attempt, after the lane's completions ahead of it.
         *
         * @return whether the lane goes on with its next record
         */
        private boolean afterFailure(LaneRun lane, Delivery delivery, HandlerRoute route, Throwable failure,
                long sentAt) {
            Duration time = Duration.ofNanos(System.nanoTime() - sentAt);
            if (lane.work.isAbandoned()) {
                log.info("Outbox record {} was interrupted by shutdown; it stays NEW and will be published again",
                        delivery.id());
                lane.stopped = true;
                return false;
            }
            if (route.publisher() != null) {
                listener.onPublishFailed(delivery.record(), failure, time);
            }
            try {
                outcomes.complete(lane.done);
                lane.done.clear();
                if (settler.settle(delivery, route, failure, time)) {
                    lane.done.add(new Completion(delivery, time));
                    return true;
                }
            } catch (RuntimeException e) {
                log.warn("Outbox lane {}: could not store an outcome; its records will be published again",
                        lane.work.lane, e);
                lane.done.clear();
                lane.stopped = true;
                return false;
            }
            lane.stopped = stopOnFirstFailure;
            return !stopOnFirstFailure;
        }

        private void flushIfSent() {
            if (!sentSinceFlush) {
                return;
            }
            sentSinceFlush = false;
            try {
                batch.publisher.flush();
            } catch (RuntimeException e) {
                log.warn("Outbox publisher {}: flush failed; the acknowledgements will tell", batch.publisher, e);
            }
        }

        private void finish() {
            for (LaneRun lane : laneRuns) {
                if (lane.done.isEmpty()) {
                    lanes.release(lane.work);
                } else {
                    lane.work.completions = lane.done;
                    outcomes.completeAndRelease(lane.work);
                }
            }
        }
    }

    private static long nanos(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalStateException("acknowledgementTimeout of a publisher must be positive, was " + timeout);
        }
        try {
            return timeout.toNanos();
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE / 2;
        }
    }

    /** One lane's progress through the batch. */
    private static final class LaneRun {
        final LaneWork work;
        final List<Completion> done = new ArrayList<>();
        int next;
        boolean stopped;

        LaneRun(LaneWork work) {
            this.work = work;
        }

        boolean hasNext() {
            return !stopped && next < work.deliveries.size();
        }
    }

    /** A record sent and not yet settled. */
    private static final class Sending {
        final LaneRun lane;
        final Delivery delivery;
        final HandlerRoute route;
        final long sentAt;
        final long deadline;
        boolean settled;

        Sending(LaneRun lane, Delivery delivery, HandlerRoute route, long sentAt, long deadline) {
            this.lane = lane;
            this.delivery = delivery;
            this.route = route;
            this.sentAt = sentAt;
            this.deadline = deadline;
        }
    }

    private record Acknowledgement(Sending sending, @Nullable Object value, @Nullable Throwable failure) {
    }
}
