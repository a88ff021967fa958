package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.processing.FailureDecision.Defer;
import dev.outbox.processing.FailureDecision.Fail;
import dev.outbox.processing.FailureDecision.Fallback;
import dev.outbox.processing.FailureDecision.Outcome;
import dev.outbox.processing.FailureDecision.Postpone;
import dev.outbox.processing.FailureDecision.Retry;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a lane does when one of its records fails, for the lane worker and the publishing worker alike: the completions
 * ahead of the record are stored first (a lane's outcomes are stored in order), then the {@link FailureDecision} is
 * carried out (a deferral, a postponement, a retry, the route's fallback, or the failure), and under
 * stop-on-first-failure the lane's run ends there, its later records waiting for a later fetch. A lane given up by a
 * stop stores nothing: the record stays NEW. An outcome that cannot be stored ends the lane's run too, dropping the
 * completions not yet stored: those records stay NEW and are handled again.
 */
final class LaneFailures {

    private static final Logger log = LoggerFactory.getLogger(LaneFailures.class);

    private final FailureDecision decision;
    private final OutcomeWriter outcomes;
    private final OutboxListener listener;
    private final Clock clock;
    private final boolean stopOnFirstFailure;

    LaneFailures(FailureDecision decision, OutcomeWriter outcomes, OutboxListener listener, Clock clock,
            boolean stopOnFirstFailure) {
        this.decision = decision;
        this.outcomes = outcomes;
        this.listener = listener;
        this.clock = clock;
        this.stopOnFirstFailure = stopOnFirstFailure;
    }

    /**
     * Handles a failed attempt of {@code delivery}, a record of {@code work}'s lane.
     *
     * @param done the lane's completions ahead of the record, not yet stored: stored now and cleared (or just cleared
     *     when storing fails); the record joins them when its fallback took it
     * @param time how long the attempt took
     * @param publishing true on the publishing worker: a failure of a publisher's record is reported to the listener
     *     ({@link OutboxListener#onPublishFailed}), and the logs say "published" again rather than "processed"
     * @return whether the lane goes on with its next record
     */
    boolean afterFailure(LaneWork work, List<Completion> done, Delivery delivery, HandlerRoute route,
            Throwable failure, Duration time, boolean publishing) {
        String again = publishing ? "published" : "processed";
        if (work.isAbandoned()) {
            log.info("Outbox record {} was interrupted by shutdown; it stays NEW and will be {} again", delivery.id(),
                    again);
            return false;
        }
        if (publishing && route.publisher() != null) {
            listener.onPublishFailed(delivery.record(), failure, time);
        }
        try {
            outcomes.complete(done);
            done.clear();
            if (settle(delivery, route, failure, time)) {
                done.add(new Completion(delivery, time));
                return true;
            }
        } catch (RuntimeException e) {
            log.warn("Outbox lane {}: could not store an outcome; its records will be {} again", work.lane, again, e);
            done.clear();
            return false;
        }
        return !stopOnFirstFailure;
    }

    /**
     * Carries out the decision on a failed attempt.
     *
     * @return true when the fallback took the record: store it as a completion, like a success
     * @throws RuntimeException when the outcome could not be stored; the record stays as it was
     */
    private boolean settle(Delivery delivery, HandlerRoute route, Throwable failure, Duration handlerTime) {
        Outcome outcome = decision.decide(delivery.record(), failure, route, clock.instant());
        if (outcome instanceof Defer defer) {
            outcomes.defer(delivery, defer);
        } else if (outcome instanceof Postpone postpone) {
            outcomes.postpone(delivery, postpone);
        } else if (outcome instanceof Retry retry) {
            outcomes.retry(delivery, retry, failure, handlerTime);
        } else if (outcome instanceof Fallback && route.fallback() != null) {
            return recover(delivery, route.fallback(), outcome.error(), failure, handlerTime);
        } else if (outcome instanceof Fail) {
            outcomes.fail(delivery, outcome.error(), failure, handlerTime);
        }
        return false;
    }

    private boolean recover(Delivery delivery, HandlerRoute.Fallback fallback, String error, Throwable failure,
            Duration handlerTime) {
        OutboxRecord record = delivery.record();
        try {
            fallback.recover(record, failure);
            log.warn("Outbox record {} ({}, aggregate {}) failed after {} attempt(s) and was taken by its fallback: "
                    + "{}", record.getId(), record.getEventType(), record.getAggregateId(), record.getRetryCount() + 1,
                    error);
            return true;
        } catch (Throwable fallbackFailure) {
            if (fallbackFailure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            if (fallbackFailure != failure) {
                failure.addSuppressed(fallbackFailure);
            }
            outcomes.fail(delivery, ErrorText.truncate(error + "; the fallback failed too: "
                    + ErrorText.of(fallbackFailure), OutboxRecord.MAX_ERROR_LENGTH), failure, handlerTime);
            return false;
        }
    }
}
