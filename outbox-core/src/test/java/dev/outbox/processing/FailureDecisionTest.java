package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxRecord;
import dev.outbox.RetryLaterException;
import dev.outbox.processing.FailureDecision.Fail;
import dev.outbox.processing.FailureDecision.Fallback;
import dev.outbox.processing.FailureDecision.Outcome;
import dev.outbox.processing.FailureDecision.Postpone;
import dev.outbox.processing.FailureDecision.Retry;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.testing.MutableClock;
import java.io.IOException;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Every branch of the one place that decides what a failure leads to; pure, so no store and no threads. */
class FailureDecisionTest {

    private static final OutboxRetryPolicy DEFAULT = OutboxRetryPolicy.fixed(Duration.ofSeconds(5)).withMaxRetries(3);
    private static final HandlerRoute PLAIN = HandlerRoute.to(record -> { });
    private static final HandlerRoute WITH_FALLBACK = new HandlerRoute(record -> { }, null, (record, failure) -> { });

    private final FailureDecision decision = new FailureDecision(DEFAULT);

    private static OutboxRecord attempt(int retriesSoFar) {
        return OutboxRecord.builder().aggregateId("A").eventType("E").payload("{}").build(MutableClock.startingNow())
                .toBuilder().retryCount(retriesSoFar).build();
    }

    @Test
    void aRetryableFailureWithRetriesLeftIsRetriedAfterThePolicysDelay() {
        Outcome outcome = decision.decide(attempt(1), new IOException("broker down"), PLAIN);

        assertThat(outcome).isEqualTo(new Retry(2, 3, Duration.ofSeconds(5), "java.io.IOException: broker down"));
    }

    @Test
    void onceTheRetriesAreUsedUpTheRecordFailsOrGoesToItsFallback() {
        IOException failure = new IOException("broker down");

        assertThat(decision.decide(attempt(3), failure, PLAIN)).isInstanceOf(Fail.class);
        assertThat(decision.decide(attempt(3), failure, WITH_FALLBACK)).isInstanceOf(Fallback.class);
        assertThat(decision.decide(attempt(3), failure, PLAIN).error()).isEqualTo(ErrorText.of(failure));
    }

    @Test
    void aNonRetryableFailureFailsAtOnceWhateverTheRetriesLeft() {
        NonRetryableRecordException poison = new NonRetryableRecordException("not an OrderPlaced");

        assertThat(decision.decide(attempt(0), poison, PLAIN)).isInstanceOf(Fail.class);
        assertThat(decision.decide(attempt(0), poison, WITH_FALLBACK)).isInstanceOf(Fallback.class);
    }

    @Test
    void aFailureThePolicyRefusesToRetryFailsAtOnce() {
        OutboxRetryPolicy notArguments = new OutboxRetryPolicy() {
            @Override
            public boolean shouldRetry(Throwable exception) {
                return !(exception instanceof IllegalArgumentException);
            }

            @Override
            public Duration nextDelay(int retryCount) {
                return Duration.ofSeconds(1);
            }
        };
        HandlerRoute route = new HandlerRoute(record -> { }, notArguments, null);

        assertThat(decision.decide(attempt(0), new IllegalArgumentException("bad"), route)).isInstanceOf(Fail.class);
        assertThat(decision.decide(attempt(0), new IllegalStateException("later"), route))
                .isEqualTo(new Retry(1, 3, Duration.ofSeconds(1), "java.lang.IllegalStateException: later"));
    }

    @Test
    void retryLaterPostponesByItsDelayWithoutUsingAnAttemptEvenWithNoRetriesLeft() {
        Outcome outcome = decision.decide(attempt(3), new RetryLaterException(Duration.ofSeconds(30), "rate limited"),
                PLAIN);

        assertThat(outcome).isInstanceOfSatisfying(Postpone.class, postpone -> {
            assertThat(postpone.delay()).isEqualTo(Duration.ofSeconds(30));
            assertThat(postpone.notCalled()).isFalse();
        });
    }

    @Test
    void aHandlerThatCouldNotBeCalledIsPostponedWithoutUsingAnAttempt() {
        HandlerInvocationException notCalled = new HandlerInvocationException("@OutboxHandler method X.y",
                new IllegalAccessException("denied"));

        for (int retriesSoFar : new int[] {0, 3, 100}) {
            assertThat(decision.decide(attempt(retriesSoFar), notCalled, WITH_FALLBACK))
                    .isEqualTo(new Postpone(HandlerInvocationException.RETRY_DELAY, ErrorText.of(notCalled), true));
        }
    }

    @Test
    void theRoutesPolicyWinsAndWithoutABoundOfItsOwnTakesTheDefaultPolicysBound() {
        HandlerRoute bounded = new HandlerRoute(record -> { },
                OutboxRetryPolicy.fixed(Duration.ofMinutes(1)).withMaxRetries(10), null);
        HandlerRoute unbounded = new HandlerRoute(record -> { }, OutboxRetryPolicy.fixed(Duration.ofMinutes(2)), null);

        assertThat(decision.decide(attempt(5), new IOException("x"), bounded))
                .isEqualTo(new Retry(6, 10, Duration.ofMinutes(1), "java.io.IOException: x"));
        assertThat(decision.decide(attempt(2), new IOException("x"), unbounded))
                .isEqualTo(new Retry(3, 3, Duration.ofMinutes(2), "java.io.IOException: x"));
        assertThat(decision.decide(attempt(3), new IOException("x"), unbounded)).isInstanceOf(Fail.class);
    }

    @Test
    void aDefaultPolicyWithoutABoundMeansTheLibrarysDefaultNumberOfRetries() {
        FailureDecision unboundedDefault = new FailureDecision(OutboxRetryPolicy.fixed(Duration.ZERO));
        int last = OutboxRetryPolicy.DEFAULT_MAX_RETRIES;

        assertThat(unboundedDefault.decide(attempt(last - 1), new IOException("x"), PLAIN)).isInstanceOf(Retry.class);
        assertThat(unboundedDefault.decide(attempt(last), new IOException("x"), PLAIN)).isInstanceOf(Fail.class);
    }
}
