package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.processing.FailureDecision.Defer;
import dev.outbox.processing.FailureDecision.Fail;
import dev.outbox.processing.FailureDecision.Fallback;
import dev.outbox.processing.FailureDecision.Outcome;
import dev.outbox.processing.FailureDecision.Postpone;
import dev.outbox.processing.FailureDecision.Retry;
import dev.outbox.spi.Delivery;
import java.time.Clock;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Carries out the {@link FailureDecision} on a failed attempt: stores the postponement, the retry or the failure, or
 * hands the record to its route's fallback. Shared by the lane worker and the publishing worker.
 */
final class AttemptSettler {

    private static final Logger log = LoggerFactory.getLogger(AttemptSettler.class);

    private final FailureDecision decision;
    private final OutcomeWriter outcomes;
    private final Clock clock;

    AttemptSettler(FailureDecision decision, OutcomeWriter outcomes, Clock clock) {
        this.decision = decision;
        this.outcomes = outcomes;
        this.clock = clock;
    }

    /**
     * Settles a failed attempt.
     *
     * @return true when the fallback took the record: store it as a completion, like a success
     * @throws RuntimeException when the outcome could not be stored; the record stays as it was
     */
    boolean settle(Delivery delivery, HandlerRoute route, Throwable failure, Duration handlerTime) {
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
