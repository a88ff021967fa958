package dev.outbox.processing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * How the poll loop waits. Waits that must end are bounded by a generous deadline; a short timeout is used only where
 * running into it is the expected outcome. Whether a waiting thread re-checked its conditions is seen through the
 * {@code running} supplier, which the waiter reads on every check.
 */
class WaiterTest {

    private static final Duration PATIENCE = Duration.ofSeconds(30);
    /** Longer than any test: a wait that returns did not time out. */
    private static final Duration FOREVER = Duration.ofHours(1);
    private static final Duration SHORT = Duration.ofMillis(50);

    private final Waiter waiter = new Waiter();
    private final ExecutorService threads = Executors.newCachedThreadPool();
    private final AtomicReference<Thread> waiting = new AtomicReference<>();

    @AfterEach
    void stopThreads() {
        threads.shutdownNow();
    }

    /** Runs {@code wait} on another thread and returns once that thread is parked in the waiter. */
    private CompletableFuture<Void> waitingThread(InterruptibleRunnable wait) {
        CompletableFuture<Void> done = CompletableFuture.runAsync(() -> {
            waiting.set(Thread.currentThread());
            try {
                wait.run();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        }, threads);
        await().atMost(PATIENCE).until(() -> isParked(waiting.get()));
        return done;
    }

    private static boolean isParked(Thread thread) {
        return thread != null && (thread.getState() == Thread.State.WAITING
                || thread.getState() == Thread.State.TIMED_WAITING);
    }

    @FunctionalInterface
    private interface InterruptibleRunnable {
        void run() throws InterruptedException;
    }

    @Test
    void aWakeUpBeforeAwaitReturnsAtOnceAndIsConsumed() throws Exception {
        waiter.wakeUp();

        assertTimeoutPreemptively(PATIENCE, () -> waiter.await(FOREVER, false, () -> true));

        // Consumed: the next wait runs into its timeout.
        long started = System.nanoTime();
        waiter.await(SHORT, false, () -> true);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(SHORT);
    }

    @Test
    void manyWakeUpsBeforeAwaitAreOneWakeUp() throws Exception {
        waiter.wakeUp();
        waiter.wakeUp();
        assertTimeoutPreemptively(PATIENCE, () -> waiter.await(FOREVER, false, () -> true));

        long started = System.nanoTime();
        waiter.await(SHORT, true, () -> true);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(SHORT);
    }

    @Test
    void aWakeUpDuringAwaitEndsIt() throws Exception {
        CompletableFuture<Void> done = waitingThread(() -> waiter.await(FOREVER, false, () -> true));

        waiter.wakeUp();

        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitWithOrReleaseReturnsOnARelease() throws Exception {
        CompletableFuture<Void> done = waitingThread(() -> waiter.await(FOREVER, true, () -> true));

        waiter.released();

        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitWithoutOrReleaseKeepsWaitingThroughARelease() throws Exception {
        AtomicInteger checks = new AtomicInteger();
        CompletableFuture<Void> done = waitingThread(() -> waiter.await(FOREVER, false, () -> {
            checks.incrementAndGet();
            return true;
        }));
        int checksBefore = checks.get();

        waiter.released();

        // Woken, it checked its conditions again and went back to waiting: it did not return.
        await().atMost(PATIENCE).until(() -> checks.get() > checksBefore && isParked(waiting.get()));
        assertThat(done).isNotDone();

        waiter.wakeUp();
        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitReturnsWhenNoLongerRunningOnceToldOfTheChange() throws Exception {
        AtomicBoolean running = new AtomicBoolean(true);
        CompletableFuture<Void> done = waitingThread(() -> waiter.await(FOREVER, false, running::get));

        running.set(false);
        waiter.changed();

        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitReturnsAtItsTimeoutWhenNothingHappens() throws Exception {
        long started = System.nanoTime();
        waiter.await(SHORT, true, () -> true);
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(SHORT);
    }

    @Test
    void awaitUntilReturnsAtOnceWhenTheConditionHolds() {
        assertTimeoutPreemptively(PATIENCE, () -> waiter.awaitUntil(() -> true));
    }

    @Test
    void awaitUntilReturnsOnceTheConditionHoldsAfterAChange() throws Exception {
        AtomicBoolean condition = new AtomicBoolean();
        AtomicInteger checks = new AtomicInteger();
        CompletableFuture<Void> done = waitingThread(() -> waiter.awaitUntil(() -> {
            checks.incrementAndGet();
            return condition.get();
        }));

        // A change while the condition is still false: checked again, and the wait goes on.
        int checksBefore = checks.get();
        waiter.changed();
        await().atMost(PATIENCE).until(() -> checks.get() > checksBefore && isParked(waiting.get()));
        assertThat(done).isNotDone();

        condition.set(true);
        waiter.changed();
        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitUntilIsCheckedAgainAfterARelease() throws Exception {
        AtomicBoolean condition = new AtomicBoolean();
        CompletableFuture<Void> done = waitingThread(() -> waiter.awaitUntil(condition::get));

        condition.set(true);
        waiter.released();

        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    @Test
    void awaitUntilDoesNotConsumeAWakeUp() throws Exception {
        AtomicBoolean condition = new AtomicBoolean();
        CompletableFuture<Void> done = waitingThread(() -> waiter.awaitUntil(condition::get));
        waiter.wakeUp(); // arrives while the loop waits for room in the pipeline
        condition.set(true);
        waiter.changed();
        done.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);

        // The loop's next wait still sees it: records committed meanwhile are fetched at once.
        assertTimeoutPreemptively(PATIENCE, () -> waiter.await(FOREVER, false, () -> true));
    }
}
