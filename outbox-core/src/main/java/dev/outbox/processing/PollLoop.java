package dev.outbox.processing;

import dev.outbox.internal.FailureLog;
import dev.outbox.processing.Dispatcher.Fetch;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background loop, a pipeline: it fetches again as soon as the records in hand drop to half a batch, without
 * waiting for the slowest lane, and skips the lanes in hand. Records sent to a broker and waiting for its
 * acknowledgement do not count, and the fetch reads past them (up to {@link #MAX_BATCHES_IN_HAND} batches in hand in
 * all), so a publisher has more than a batch in flight. When nothing is due it polls soon after activity, when
 * retries and records of writers that do not wake it are likeliest, then backs off by doubling to the poll interval,
 * so an idle instance costs one query per poll interval. A failing fetch is retried every poll interval, and logged
 * when it starts, once a minute while it lasts, and when it ends.
 */
final class PollLoop implements Runnable {

    private static final Logger log = LoggerFactory.getLogger(PollLoop.class);
    private static final Duration FIRST_IDLE_WAIT = Duration.ofMillis(50);
    /**
     * Records waiting for acknowledgements do not count in the half batch: they hold no worker, and a destination that
     * does not answer must keep no other lane from being fetched; but all in hand stay within this many batches.
     */
    static final int MAX_BATCHES_IN_HAND = 10;
    /**
     * Fetches run back to back at start while they find nothing, before the loop reports itself warm: the fetch's
     * code has run and its statement is prepared. Five, because JDBC drivers such as pgjdbc prepare a statement on the
     * server from its fifth execution on a connection ({@code prepareThreshold}).
     */
    static final int WARM_UP_FETCHES = 5;

    private final Dispatcher dispatcher;
    private final LaneTable lanes;
    private final Waiter waiter;
    private final ProcessingOptions options;
    private final FailureLog outage;
    private volatile boolean running = true;
    private final CountDownLatch warm = new CountDownLatch(1);

    PollLoop(Dispatcher dispatcher, LaneTable lanes, Waiter waiter, ProcessingOptions options) {
        this.dispatcher = dispatcher;
        this.lanes = lanes;
        this.waiter = waiter;
        this.options = options;
        this.outage = FailureLog.everyMinute();
    }

    /** Ends the loop once the lanes in hand are released; see {@link #run()}. */
    void stop() {
        running = false;
        waiter.changed();
    }

    /**
     * Waits until the first fetches are done (see {@link #WARM_UP_FETCHES}), a fetch failed, or {@code timeout} passed.
     *
     * @return true when warm
     */
    boolean awaitWarm(Duration timeout) throws InterruptedException {
        return warm.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void run() {
        Duration idleWait = options.pollInterval();
        // Room for a batch beyond the half batch that may still be in hand, whose rows the fetch also reads.
        int baseLimit = options.batchSize() + options.batchSize() / 2;
        int maxInHand = MAX_BATCHES_IN_HAND * options.batchSize();
        int emptyWarmUpFetches = 0;
        try {
            while (running) {
                waiter.awaitUntil(() -> !running || lanes.recordsInWork() <= options.batchSize() / 2
                        // room for a batch: a fetch reads the records in flight too, so not one per release
                        && lanes.recordsInHand() <= maxInHand - options.batchSize());
                if (!running) {
                    break;
                }
                int limit = baseLimit + waitingRoom(maxInHand);
                Fetch fetch = fetch(limit);
                boolean warming = warm.getCount() > 0;
                if (warming && (fetch == null || fetch == Fetch.STORE_NOT_ASKED || fetch.fetched() > 0
                        || fetch.skipped() > 0 || ++emptyWarmUpFetches >= WARM_UP_FETCHES)) {
                    warm.countDown();
                    warming = false;
                }
                if (warming) {
                    continue; // an empty fetch at start: the next one at once, until the loop is warm
                }
                if (fetch == null) {
                    waiter.await(options.pollInterval(), false, this::isRunning);
                } else if (fetch.skippedReleased()) {
                    // A lane left by the race guard was released while its rows were read: read it again at once.
                    idleWait = FIRST_IDLE_WAIT;
                } else if (fetch.sweeping()) {
                    idleWait = FIRST_IDLE_WAIT; // a stretch below the floor per fetch: the next one at once
                } else if (fetch.dispatched().isEmpty() && fetch.skipped() > 0) {
                    // Everything due belongs to lanes in hand: fetch again once one of them is released.
                    waiter.await(options.pollInterval(), true, this::isRunning);
                } else if (fetch.fetched() >= limit) {
                    idleWait = FIRST_IDLE_WAIT; // more may be waiting
                } else if (fetch.skipped() > 0) {
                    waiter.await(FIRST_IDLE_WAIT, true, this::isRunning); // later records of lanes in hand are due
                } else {
                    idleWait = fetch.fetched() > 0 ? FIRST_IDLE_WAIT : min(idleWait.multipliedBy(2),
                            options.pollInterval());
                    waiter.await(idleWait, false, this::isRunning);
                }
            }
            waiter.awaitUntil(() -> lanes.recordsInHand() == 0);
        } catch (InterruptedException e) {
            // A stop that gave up on the handlers: leave at once, the records in hand stay NEW.
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            warm.countDown();
        }
    }

    /**
     * The rows the fetch reads beyond its base limit for the records waiting for acknowledgements: they are NEW and
     * among the oldest, so a fetch of the base limit would read little else and the records in flight would stay near
     * a batch. Whole batches, so that the database sees few statement texts.
     */
    private int waitingRoom(int maxInHand) {
        int waiting = Math.min(lanes.recordsWaiting(), maxInHand);
        int batch = options.batchSize();
        return (waiting + batch - 1) / batch * batch;
    }

    private boolean isRunning() {
        return running;
    }

    /** One fetch; null when it failed, which is logged as an outage. */
    private @Nullable Fetch fetch(int limit) {
        try {
            Fetch fetch = dispatcher.fetchAndDispatch(limit);
            if (fetch == Fetch.STORE_NOT_ASKED) {
                // e.g. the lease is lost in an outage: owning nothing, the loop never reached the store
                return fetch;
            }
            Duration outageLasted = outage.succeeded();
            if (outageLasted != null) {
                log.info("Outbox processor: the record store answers again after {}", outageLasted);
            }
            return fetch;
        } catch (RuntimeException e) {
            boolean first = !outage.isFailing();
            if (outage.failed()) {
                if (first) {
                    log.warn("Outbox processor: fetching due records failed; retrying every {}",
                            options.pollInterval(), e);
                } else {
                    log.warn("Outbox processor: fetching due records still fails after {}: {}",
                            outage.failingFor(), e.toString());
                }
            }
            return null;
        } catch (Error e) {
            log.error("Outbox processor: unexpected error; continuing", e);
            return null;
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }
}
