package dev.outbox.processing;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxRecord;
import dev.outbox.RetryLaterException;
import dev.outbox.publish.PublishException;
import dev.outbox.retry.OutboxRetryPolicy;
import java.time.Duration;
import java.time.Instant;

/**
 * What becomes of a record after a failed attempt: the one place that decides it. Pure: it reads the record, the
 * failure and the route's retry policy, and stores nothing; the lane worker carries the decision out.
 *
 * <ol>
 *   <li>No handler of this instance takes the record ({@link HandlerNotDeployedException}): deferred by the deferral
 *       interval without using an attempt, until the maximum deferral has passed since its first deferral (not since
 *       its creation: a record scheduled ahead, or retried by an operator, may be old when it is first deferred);
 *       then it fails, and no fallback takes it (the fallbacks belong to handlers).</li>
 *   <li>The handler was never called ({@link HandlerInvocationException}): not the record's failure, so it is
 *       postponed by {@link HandlerInvocationException#RETRY_DELAY} without using an attempt.</li>
 *   <li>The handler asked to come back later ({@link RetryLaterException}): postponed by its delay, without using an
 *       attempt.</li>
 *   <li>A retryable failure ({@link OutboxRetryPolicy#shouldRetry}, not a {@link NonRetryableRecordException}, not a
 *       {@link PublishException} whose reason a retry cannot help) with retries left: retry number {@code n} after
 *       the policy's {@code nextDelay(n)}.</li>
 *   <li>Otherwise the record has failed for good: its route's fallback may take it, else it fails.</li>
 * </ol>
 *
 * <p>The number of retries is the route's policy's {@link OutboxRetryPolicy#maxRetries()}, else the default policy's,
 * else {@link OutboxRetryPolicy#DEFAULT_MAX_RETRIES}.
 */
final class FailureDecision {

    private final OutboxRetryPolicy defaultPolicy;
    private final int defaultMaxRetries;
    private final Duration maxDeferral;
    private final Duration deferralInterval;

    FailureDecision(OutboxRetryPolicy defaultPolicy, ProcessingOptions options) {
        this.defaultPolicy = defaultPolicy;
        this.defaultMaxRetries = defaultPolicy.maxRetries().orElse(OutboxRetryPolicy.DEFAULT_MAX_RETRIES);
        this.maxDeferral = options.maxDeferral();
        this.deferralInterval = options.deferralInterval();
    }

    /** What becomes of {@code record} after {@code failure}, at {@code now}. */
    Outcome decide(OutboxRecord record, Throwable failure, HandlerRoute route, Instant now) {
        String error = ErrorText.of(failure);
        if (failure instanceof HandlerNotDeployedException) {
            Instant firstDeferredAt = record.getFirstDeferredAt() == null ? now : record.getFirstDeferredAt();
            if (Duration.between(firstDeferredAt, now).compareTo(maxDeferral) < 0) {
                return new Defer(deferralInterval, error);
            }
            return new Fail(ErrorText.truncate(error + "; it waited " + maxDeferral + " (outbox.processing."
                    + "max-deferral) since its first deferral at " + firstDeferredAt + " for an instance that takes "
                    + "it. Was the handler renamed or removed? Deploy it again and retry the record, or skip or delete "
                    + "it with OutboxAdmin", OutboxRecord.MAX_ERROR_LENGTH));
        }
        if (failure instanceof HandlerInvocationException) {
            return new Postpone(HandlerInvocationException.RETRY_DELAY, error, true);
        }
        if (failure instanceof RetryLaterException later) {
            return new Postpone(later.delay(), error, false);
        }
        OutboxRetryPolicy policy = route.retryPolicy() == null ? defaultPolicy : route.retryPolicy();
        int maxRetries = policy.maxRetries().orElse(defaultMaxRetries);
        boolean retryable = !(failure instanceof NonRetryableRecordException)
                && !(failure instanceof PublishException published && !published.isRetryable())
                && policy.shouldRetry(failure);
        if (retryable && record.getRetryCount() < maxRetries) {
            int retryCount = record.getRetryCount() + 1;
            return new Retry(retryCount, maxRetries, policy.nextDelay(retryCount), error);
        }
        return route.fallback() == null ? new Fail(error) : new Fallback(error);
    }

    /** What to do with the record. */
    sealed interface Outcome permits Defer, Postpone, Retry, Fallback, Fail {

        /** The bounded error text to store. */
        String error();
    }

    /** Due again after {@code delay}, with the same retry count, for an instance that takes it. */
    record Defer(Duration delay, String error) implements Outcome {
    }

    /**
     * Due again after {@code delay}, with the same retry count.
     *
     * @param notCalled the handler was never called: a fault of the deployment or the library, logged at ERROR
     */
    record Postpone(Duration delay, String error, boolean notCalled) implements Outcome {
    }

    /** Due again after {@code delay} as retry number {@code retryCount} of at most {@code maxRetries}. */
    record Retry(int retryCount, int maxRetries, Duration delay, String error) implements Outcome {
    }

    /** Failed for good; the route's fallback may take it. */
    record Fallback(String error) implements Outcome {
    }

    /** Failed for good, with nobody to take it. */
    record Fail(String error) implements Outcome {
    }
}
