package dev.outbox.monitoring;

import dev.outbox.internal.DaemonThreads;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * The last answer of a database read, refreshed on a thread of its own, so that health checks and endpoints answer
 * in bounded time whatever the database does: a caller waits at most as long as it says, then gets the last answer
 * with its age. At most one read is in flight, so calls during an outage do not pile up on the connection pool.
 *
 * @param <T> what the read returns
 */
public final class LatestReading<T> {

    private static final Duration IDLE_THREAD_TIMEOUT = Duration.ofSeconds(30);

    private final Supplier<T> read;
    private final Duration reuseFor;
    private final Clock clock;
    private final ExecutorService reader;

    private volatile @Nullable T value;
    private volatile @Nullable Instant valueAt;
    private volatile @Nullable RuntimeException failure;
    /** Start of the first read since the last success; null once one succeeds. */
    private volatile @Nullable Instant unansweredSince;
    private @Nullable Instant lastAttempt;
    private @Nullable CompletableFuture<T> inFlight;

    /**
     * @param threadName name of the reading thread (a daemon, started on the first read)
     * @param read the database read
     * @param reuseFor how long an answer or a failure is kept before the next read
     * @param clock the clock that dates answers
     */
    public LatestReading(String threadName, Supplier<T> read, Duration reuseFor, Clock clock) {
        this.read = Objects.requireNonNull(read, "read");
        this.reuseFor = Objects.requireNonNull(reuseFor, "reuseFor");
        this.clock = Objects.requireNonNull(clock, "clock");
        // the thread ends when idle, so that readings of closed applications leave no thread behind
        ThreadPoolExecutor pool = new ThreadPoolExecutor(1, 1, IDLE_THREAD_TIMEOUT.toSeconds(), TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(), DaemonThreads.named(threadName));
        pool.allowCoreThreadTimeOut(true);
        this.reader = pool;
    }

    /**
     * Starts a read when the last answer or failure is older than {@code reuseFor} and none is in flight, waits up to
     * {@code wait} for the read in flight, and returns what is known then. Never throws what the read threw.
     */
    public Reading<T> get(Duration wait) {
        CompletableFuture<T> pending;
        synchronized (this) {
            Instant now = clock.instant();
            if (inFlight == null && !recent(lastAttempt, now) && !recent(valueAt, now)) {
                lastAttempt = now;
                if (unansweredSince == null) {
                    unansweredSince = now;
                }
                inFlight = CompletableFuture.supplyAsync(this::attempt, reader);
            }
            pending = inFlight;
        }
        if (pending != null && !wait.isZero()) {
            try {
                pending.get(wait.toNanos(), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException answerLater) {
                // the caller gets what is known: the last answer, or the failure
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return current();
    }

    /** An answer obtained elsewhere (a synchronous read of the same figures), kept as the last one. */
    public void answered(T answer, Instant at) {
        value = answer;
        valueAt = at;
        failure = null;
        unansweredSince = null;
    }

    /** A failure seen elsewhere (a synchronous read of the same figures). */
    public void failed(RuntimeException e) {
        failure = e;
    }

    /** What is known now, without reading. */
    public Reading<T> current() {
        Instant now = clock.instant();
        Instant since = unansweredSince;
        Instant at = valueAt;
        return new Reading<>(value, at == null ? null : nonNegative(Duration.between(at, now)), since != null,
                since == null ? Duration.ZERO : nonNegative(Duration.between(since, now)), failure);
    }

    private T attempt() {
        try {
            T answer = read.get();
            answered(answer, clock.instant());
            return answer;
        } catch (RuntimeException e) {
            failed(e);
            throw e;
        } finally {
            synchronized (this) {
                inFlight = null;
            }
        }
    }

    private boolean recent(@Nullable Instant at, Instant now) {
        return at != null && Duration.between(at, now).compareTo(reuseFor) < 0;
    }

    private static Duration nonNegative(Duration duration) {
        return duration.isNegative() ? Duration.ZERO : duration;
    }

    /**
     * What a {@link LatestReading} knows at one moment.
     *
     * @param value the last answer; null before the first
     * @param age how old the last answer is; null before the first
     * @param awaitingAnswer whether a read since the last answer is unanswered: in flight or failed
     * @param unansweredFor how long the database has not answered: since the start of the first read after the
     *     last answer, zero when the last read answered
     * @param failure what the last read threw, while no later one answered
     */
    public record Reading<T>(@Nullable T value, @Nullable Duration age, boolean awaitingAnswer, Duration unansweredFor,
            @Nullable RuntimeException failure) {

        /** The last answer, if any. */
        public Optional<T> answer() {
            return Optional.ofNullable(value);
        }

        /** Whether the answer is not current: none yet, the last read failed, or a read is still unanswered. */
        public boolean stale() {
            return value == null || failure != null || awaitingAnswer;
        }
    }
}
