package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.RetryLaterException;
import dev.outbox.processing.FailureDecision.Defer;
import dev.outbox.processing.FailureDecision.Fail;
import dev.outbox.processing.FailureDecision.Fallback;
import dev.outbox.processing.FailureDecision.Outcome;
import dev.outbox.processing.FailureDecision.Postpone;
import dev.outbox.processing.FailureDecision.Retry;
import dev.outbox.retry.OutboxRetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The pure failure decision, branch by branch: record (retry count) + failure + route → outcome. */
class FailureDecisionTest {

    private static final OutboxRecordProcessor HANDLER = record -> { };
    private static final HandlerRoute.Fallback FALLBACK = (record, failure) -> { };
    private static final Duration LATER = Duration.ofSeconds(42);
    private static final Instant CREATED = Instant.parse("2025-01-01T00:00:00Z");
    private static final Instant NOW = CREATED.plusSeconds(1);

    /** Delays that name the retry number (n seconds for retry n), so a wrong argument shows in the outcome. */
    private static final class NumberedDelays implements OutboxRetryPolicy {
        final List<Integer> asked = new ArrayList<>();
        private final Predicate<Throwable> retryable;
        private final Duration unit;

        NumberedDelays(Duration unit, Predicate<Throwable> retryable) {
            this.unit = unit;
            this.retryable = retryable;
        }

        NumberedDelays(Duration unit) {
            this(unit, failure -> true);
        }

        @Override
        public boolean shouldRetry(Throwable exception) {
            return retryable.test(exception);
        }

        @Override
        public Duration nextDelay(int retryCount) {
            asked.add(retryCount);
            return unit.multipliedBy(retryCount);
        }
    }

    private static OutboxRecord record(int retryCount) {
        return OutboxRecord.restore().id("r-" + retryCount).aggregateId("order-1").eventType("OrderPlaced")
                .payload("{}").createdAt(CREATED).status(OutboxRecordStatus.NEW)
                .retryCount(retryCount).sequence(1L).build();
    }

    private static HandlerRoute plain() {
        return HandlerRoute.to(HANDLER);
    }

    private static HandlerRoute withFallback() {
        return new HandlerRoute(HANDLER, null, FALLBACK);
    }

    private static HandlerRoute withPolicy(OutboxRetryPolicy policy) {
        return new HandlerRoute(HANDLER, policy, null);
    }

    // ------------------------------------------------------------------ no handler of this instance takes it

    @ParameterizedTest(name = "retry count {0}")
    @ValueSource(ints = {0, 3, 50})
    void aRecordNoHandlerHereTakesIsDeferredWithoutUsingAnAttemptWhileYoungerThanTheMaxDeferral(int retryCount) {
        ProcessingOptions options = ProcessingOptions.defaults().withMaxDeferral(Duration.ofHours(2))
                .withDeferralInterval(Duration.ofSeconds(3));
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(1));
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(0), options);
        HandlerNotDeployedException failure = new HandlerNotDeployedException("addressed to handler 'b'");

        assertThat(decision.decide(record(retryCount), failure, plain(), CREATED))
                .isEqualTo(new Defer(Duration.ofSeconds(3), ErrorText.of(failure)));
        assertThat(decision.decide(record(retryCount), failure, withFallback(),
                CREATED.plus(Duration.ofHours(2)).minusNanos(1000)))
                .as("a microsecond before the maximum, and with a fallback")
                .isEqualTo(new Defer(Duration.ofSeconds(3), ErrorText.of(failure)));
        assertThat(policy.asked).as("the retry policy is not asked").isEmpty();
    }

    @Test
    void aDeferredRecordFailsOnceTheMaxDeferralHasPassedSinceItsFirstDeferralAndNoFallbackTakesIt() {
        ProcessingOptions options = ProcessingOptions.defaults().withMaxDeferral(Duration.ofHours(2));
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.defaults(), options);
        HandlerNotDeployedException failure = new HandlerNotDeployedException("record r-0 is addressed to handler "
                + "'b', which this instance does not have (its handlers: [a])");
        OutboxRecord deferredAtCreation = record(0).toBuilder().firstDeferredAt(CREATED).build();

        for (HandlerRoute route : List.of(plain(), withFallback())) {
            Outcome outcome = decision.decide(deferredAtCreation, failure, route, CREATED.plus(Duration.ofHours(2)));
            assertThat(outcome).isInstanceOf(Fail.class);
            assertThat(outcome.error()).startsWith(ErrorText.of(failure))
                    .contains("waited PT2H (outbox.processing.max-deferral) since its first deferral at "
                            + "2025-01-01T00:00:00Z");
        }
    }

    @Test
    void anOldRecordDeferredForTheFirstTimeWaitsTheWholeMaxDeferralCountedFromThatDeferral() {
        ProcessingOptions options = ProcessingOptions.defaults().withMaxDeferral(Duration.ofHours(24))
                .withDeferralInterval(Duration.ofSeconds(5));
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.defaults(), options);
        HandlerNotDeployedException failure = new HandlerNotDeployedException("addressed to handler 'b'");
        Instant firstDeferral = CREATED.plus(Duration.ofDays(30)); // scheduled ahead, or retried by an operator
        OutboxRecord neverDeferred = record(0);
        OutboxRecord deferred = neverDeferred.toBuilder().firstDeferredAt(firstDeferral).build();

        assertThat(decision.decide(neverDeferred, failure, plain(), firstDeferral))
                .as("30 days old, deferred for the first time").isEqualTo(new Defer(Duration.ofSeconds(5),
                        ErrorText.of(failure)));
        assertThat(decision.decide(deferred, failure, plain(), firstDeferral.plus(Duration.ofHours(24))
                .minusNanos(1000))).as("a microsecond before a day since its first deferral")
                .isEqualTo(new Defer(Duration.ofSeconds(5), ErrorText.of(failure)));
        assertThat(decision.decide(deferred, failure, plain(), firstDeferral.plus(Duration.ofHours(24))))
                .as("a day since its first deferral").isInstanceOf(Fail.class);
    }

    @Test
    void aMaxDeferralOfZeroFailsAtOnce() {
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.defaults(),
                ProcessingOptions.defaults().withMaxDeferral(Duration.ZERO));

        assertThat(decision.decide(record(0), new HandlerNotDeployedException("no"), plain(), CREATED))
                .isInstanceOf(Fail.class);
    }

    @Test
    void theDeferralDefaultsAreADayAndFiveSecondsAndBadValuesNameTheProperty() {
        assertThat(ProcessingOptions.defaults().maxDeferral()).isEqualTo(Duration.ofHours(24));
        assertThat(ProcessingOptions.defaults().deferralInterval()).isEqualTo(Duration.ofSeconds(5));
        assertThatThrownBy(() -> ProcessingOptions.defaults().withMaxDeferral(Duration.ofSeconds(-1)))
                .hasMessage("outbox.processing.max-deferral must not be negative but was PT-1S");
        assertThatThrownBy(() -> ProcessingOptions.defaults().withDeferralInterval(Duration.ZERO))
                .hasMessage("outbox.processing.deferral-interval must be positive but was PT0S");
    }

    // ------------------------------------------------------------------ the handler was never called

    @ParameterizedTest(name = "retry count {0}")
    @ValueSource(ints = {0, 2, 3, 50})
    void aHandlerThatCouldNotBeCalledIsPostponedWithoutUsingAnAttemptWhateverTheRetryCount(int retryCount) {
        // A policy that retries nothing and has no retries left: neither matters, the handler never ran.
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.fixed(Duration.ofSeconds(1))
                .withMaxRetries(0), ProcessingOptions.defaults());
        HandlerInvocationException failure = new HandlerInvocationException("method X.y",
                new IllegalAccessException("refused"));

        assertThat(decision.decide(record(retryCount), failure, plain(), NOW))
                .isEqualTo(new Postpone(HandlerInvocationException.RETRY_DELAY, ErrorText.of(failure), true));
        assertThat(decision.decide(record(retryCount), failure, withFallback(), NOW))
                .as("a fallback does not take a record whose handler never ran")
                .isEqualTo(new Postpone(HandlerInvocationException.RETRY_DELAY, ErrorText.of(failure), true));
    }

    // ------------------------------------------------------------------ the handler asked to come back later

    @ParameterizedTest(name = "retry count {0}")
    @ValueSource(ints = {0, 3, 50})
    void retryLaterIsPostponedByItsOwnDelayEvenWithNoRetriesLeft(int retryCount) {
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(1), failure -> false);
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(0), ProcessingOptions.defaults());
        RetryLaterException failure = new RetryLaterException(LATER, "rate limited");

        assertThat(decision.decide(record(retryCount), failure, plain(), NOW))
                .isEqualTo(new Postpone(LATER, ErrorText.of(failure), false));
        assertThat(decision.decide(record(retryCount), failure, withFallback(), NOW))
                .isEqualTo(new Postpone(LATER, ErrorText.of(failure), false));
        assertThat(policy.asked).as("the policy's delays are not used").isEmpty();
    }

    @Test
    void retryLaterWithZeroDelayIsAPostponeNotARetry() {
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.defaults(), ProcessingOptions.defaults());
        RetryLaterException failure = new RetryLaterException(Duration.ZERO, "now");

        assertThat(decision.decide(record(1), failure, plain(), NOW))
                .isEqualTo(new Postpone(Duration.ZERO, ErrorText.of(failure), false));
    }

    // ------------------------------------------------------------------ failed for good at once

    @Test
    void aNonRetryableFailureFailsOrFallsBackEvenWithRetriesLeft() {
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(1));
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(10), ProcessingOptions.defaults());
        NonRetryableRecordException failure = new NonRetryableRecordException("unreadable payload");

        assertThat(decision.decide(record(0), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
        assertThat(decision.decide(record(0), failure, withFallback(), NOW
                )).isEqualTo(new Fallback(ErrorText.of(failure)));
        assertThat(policy.asked).isEmpty();
    }

    @Test
    void aNonRetryableFailureFailsEvenWhenThePolicyWouldRetryIt() {
        // shouldRetry says yes to everything; the exception type still wins.
        FailureDecision decision = new FailureDecision(new NumberedDelays(Duration.ofSeconds(1), failure -> true),
                ProcessingOptions.defaults());
        NonRetryableRecordException failure = new NonRetryableRecordException("gone", new IOException("410"));

        assertThat(decision.decide(record(0), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
    }

    @Test
    void aFailureThePolicyDoesNotRetryFailsOrFallsBack() {
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(1),
                failure -> !(failure instanceof IllegalArgumentException));
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(10), ProcessingOptions.defaults());
        IllegalArgumentException refused = new IllegalArgumentException("bad");
        IllegalStateException retried = new IllegalStateException("flaky");

        assertThat(decision.decide(record(0), refused, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(refused)));
        assertThat(decision.decide(record(0), refused, withFallback(), NOW
                )).isEqualTo(new Fallback(ErrorText.of(refused)));
        assertThat(decision.decide(record(0), retried, plain(), NOW))
                .as("the same policy retries what it accepts")
                .isEqualTo(new Retry(1, 10, Duration.ofSeconds(1), ErrorText.of(retried)));
    }

    // ------------------------------------------------------------------ retries

    @Test
    void aRetryableFailureWithRetriesLeftIsRetryNumberRetryCountPlusOneAfterThePolicysDelayForThatNumber() {
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(10));
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(3), ProcessingOptions.defaults());
        IllegalStateException failure = new IllegalStateException("boom");

        // retry count before → retry number after, with the delay the policy gives that number.
        assertThat(decision.decide(record(0), failure, plain(), NOW))
                .isEqualTo(new Retry(1, 3, Duration.ofSeconds(10), ErrorText.of(failure)));
        assertThat(decision.decide(record(1), failure, plain(), NOW))
                .isEqualTo(new Retry(2, 3, Duration.ofSeconds(20), ErrorText.of(failure)));
        assertThat(decision.decide(record(2), failure, withFallback(), NOW))
                .as("a fallback waits for the last retry")
                .isEqualTo(new Retry(3, 3, Duration.ofSeconds(30), ErrorText.of(failure)));
        assertThat(policy.asked).containsExactly(1, 2, 3);
    }

    @Test
    void onceTheLastRetryIsUsedTheRecordFailsOrFallsBack() {
        NumberedDelays policy = new NumberedDelays(Duration.ofSeconds(10));
        FailureDecision decision = new FailureDecision(policy.withMaxRetries(3), ProcessingOptions.defaults());
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(3), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
        assertThat(decision.decide(record(3), failure, withFallback(), NOW
                )).isEqualTo(new Fallback(ErrorText.of(failure)));
        assertThat(decision.decide(record(7), failure, plain(), NOW))
                .as("beyond the bound (it was lowered meanwhile)").isEqualTo(new Fail(ErrorText.of(failure)));
        assertThat(policy.asked).isEmpty();
    }

    @Test
    void aBoundOfZeroFailsTheFirstAttempt() {
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.fixed(Duration.ofSeconds(1))
                .withMaxRetries(0), ProcessingOptions.defaults());
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(0), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
    }

    @Test
    void anErrorIsJudgedLikeAnyOtherFailure() {
        FailureDecision decision = new FailureDecision(new NumberedDelays(Duration.ofSeconds(1)).withMaxRetries(1),
                ProcessingOptions.defaults());
        AssertionError failure = new AssertionError("handler bug");

        assertThat(decision.decide(record(0), failure, plain(), NOW))
                .isEqualTo(new Retry(1, 1, Duration.ofSeconds(1), ErrorText.of(failure)));
        assertThat(decision.decide(record(1), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
    }

    // ------------------------------------------------------------------ which policy and which bound

    @Test
    void theRoutesOwnPolicyWinsOverTheDefaultPolicy() {
        NumberedDelays defaults = new NumberedDelays(Duration.ofSeconds(1));
        NumberedDelays own = new NumberedDelays(Duration.ofSeconds(7));
        FailureDecision decision = new FailureDecision(defaults.withMaxRetries(5), ProcessingOptions.defaults());
        HandlerRoute route = withPolicy(own.withMaxRetries(1));
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(0), failure, route, NOW))
                .isEqualTo(new Retry(1, 1, Duration.ofSeconds(7), ErrorText.of(failure)));
        assertThat(decision.decide(record(1), failure, route, NOW))
                .as("the route's bound of 1, not the default's 5").isEqualTo(new Fail(ErrorText.of(failure)));
        assertThat(defaults.asked).isEmpty();
        assertThat(own.asked).containsExactly(1);
    }

    @Test
    void theRoutesOwnPolicyDecidesWhatIsRetryable() {
        FailureDecision decision = new FailureDecision(new NumberedDelays(Duration.ofSeconds(1)).withMaxRetries(5),
                ProcessingOptions.defaults());
        HandlerRoute route = new HandlerRoute(HANDLER,
                new NumberedDelays(Duration.ofSeconds(1), failure -> false).withMaxRetries(5), FALLBACK);
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(0), failure, route, NOW)).isEqualTo(new Fallback(ErrorText.of(failure)));
    }

    @Test
    void aRoutePolicyWithoutABoundOfItsOwnTakesTheDefaultPolicysBound() {
        FailureDecision decision = new FailureDecision(new NumberedDelays(Duration.ofSeconds(1)).withMaxRetries(5),
                ProcessingOptions.defaults());
        HandlerRoute route = withPolicy(new NumberedDelays(Duration.ofSeconds(7)));
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(4), failure, route, NOW))
                .isEqualTo(new Retry(5, 5, Duration.ofSeconds(35), ErrorText.of(failure)));
        assertThat(decision.decide(record(5), failure, route, NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
    }

    @Test
    void aDefaultPolicyWithoutABoundAllowsDefaultMaxRetries() {
        FailureDecision decision = new FailureDecision(new NumberedDelays(Duration.ofSeconds(1)),
                ProcessingOptions.defaults());
        int max = OutboxRetryPolicy.DEFAULT_MAX_RETRIES;
        IllegalStateException failure = new IllegalStateException("boom");

        assertThat(decision.decide(record(max - 1), failure, plain(), NOW))
                .isEqualTo(new Retry(max, max, Duration.ofSeconds(max), ErrorText.of(failure)));
        assertThat(decision.decide(record(max), failure, plain(), NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
        // The same for a route policy without a bound under an unbounded default.
        HandlerRoute route = withPolicy(new NumberedDelays(Duration.ofSeconds(7)));
        assertThat(decision.decide(record(max - 1), failure, route, NOW))
                .isEqualTo(new Retry(max, max, Duration.ofSeconds(7L * max), ErrorText.of(failure)));
        assertThat(decision.decide(record(max), failure, route, NOW)).isEqualTo(new Fail(ErrorText.of(failure)));
    }

    // ------------------------------------------------------------------ the error text

    @Test
    void theErrorTextIsTheBoundedTextOfTheFailureWithItsRootCause() {
        FailureDecision decision = new FailureDecision(OutboxRetryPolicy.defaults(), ProcessingOptions.defaults());
        IllegalStateException failure = new IllegalStateException("boom", new IOException("disk\u0000full"));
        String expected = "java.lang.IllegalStateException: boom (root cause: java.io.IOException: disk\uFFFDfull)";
        assertThat(ErrorText.of(failure)).isEqualTo(expected);

        List<Outcome> outcomes = List.of(
                decision.decide(record(0), failure, plain(), NOW),
                decision.decide(record(3), failure, plain(), NOW),
                decision.decide(record(3), failure, withFallback(), NOW));
        assertThat(outcomes).extracting(Outcome::error).containsOnly(expected);
        assertThat(outcomes).extracting(Object::getClass).containsExactly(Retry.class, Fail.class, Fallback.class);

        String longMessage = "x".repeat(OutboxRecord.MAX_ERROR_LENGTH * 2);
        Outcome bounded = decision.decide(record(3), new IllegalStateException(longMessage), plain(), NOW);
        assertThat(bounded.error()).hasSize(OutboxRecord.MAX_ERROR_LENGTH).endsWith("…");
    }
}
