package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.internal.DaemonThreads;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.Dispatcher.Fetch;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.WakeUpSource;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.Objects;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing engine: fetches due records of the partitions this instance owns and hands them to their handlers,
 * one lane (an aggregate's records for one handler) at a time per worker, in sequence order, with retries.
 *
 * <p>Run it in the background with {@link #start()} and {@link #stop(Duration)}, or drive it by hand with
 * {@link #processDueRecords()} (tests, batch jobs).
 *
 * <p>It is assembled from parts with one job each: the {@link PollLoop} keeps the pipeline full and backs off when
 * idle; the {@link Dispatcher} fetches and hands lanes to the {@link WorkerPool}; the {@link LaneTable} keeps a lane
 * in hand until its outcomes are stored (per-lane order, and the fetch/release race guard); a {@link LaneWorker} runs
 * one lane's records under their fence, with timeouts; a {@link PublishingWorker} publishes many lanes' records to a
 * broker at once, one record per lane in flight, releasing each lane when it is done and holding no worker while it
 * waits for acknowledgements; a {@link TransactionalWorker} runs many lanes of transactional handlers in one
 * transaction of the records' database with their completions; the {@link FailureDecision} decides what a failure
 * leads to and {@link LaneFailures} carries it out for every worker; the {@link OutcomeWriter} stores outcomes,
 * completions by group commit. After a crash, the records handed over again are the ones in hand: at most twice
 * {@link ProcessingOptions#batchSize()}, or up to {@link PollLoop#MAX_BATCHES_IN_HAND} batches while a destination
 * leaves records unacknowledged.
 *
 * <p>A third of this file is its builder: the façade itself only starts, stops and delegates.
 */
public final class OutboxProcessor implements AutoCloseable, WakeUpSource.Target {

    private static final Logger log = LoggerFactory.getLogger(OutboxProcessor.class);
    /** Longest {@link #start()} waits for the loop's first fetches: a slow database delays the start, never blocks it. */
    static final Duration WARM_UP_TIMEOUT = Duration.ofSeconds(5);

    private final PartitionOwnership ownership;
    private final ProcessingOptions options;
    private final Clock clock;
    private final String description;
    private final Waiter waiter = new Waiter();
    private final LaneTable lanes = new LaneTable(this::laneReleased);
    private final WorkerPool workers;
    private final OutcomeWriter outcomes;
    private final LaneWorker worker;
    private final PublishingWorker publishingWorker;
    private final TransactionalWorker transactionalWorker;
    private final Dispatcher dispatcher;
    private final @Nullable HandlerTimeouts timeouts;
    private final CompletionCount completed;

    private final Object lifecycle = new Object();
    private @Nullable PollLoop loop;
    private @Nullable Thread poller;
    private boolean closed;

    private OutboxProcessor(Builder builder) {
        RecordStore store = Objects.requireNonNull(builder.store, "OutboxProcessor.builder(): recordStore is required");
        HandlerRoutes routes = Objects.requireNonNull(builder.routes,
                "OutboxProcessor.builder(): handler or routes is required");
        RecordTransactions transactions = TransactionalWorker.required(routes, builder.transactions);
        this.ownership = builder.ownership;
        this.options = builder.options;
        this.clock = builder.clock;
        this.description = options + ", retry policy " + builder.retryPolicy + ", handlers " + routes;
        this.timeouts = options.handlerTimeout().map(HandlerTimeouts::new).orElse(null);
        this.workers = new WorkerPool(options.concurrency(), builder.workerThreadFactory);
        this.completed = new CompletionCount(builder.listener);
        this.outcomes = new OutcomeWriter(store, ownership, completed, clock, options, lanes);
        LaneFailures failures = new LaneFailures(new FailureDecision(builder.retryPolicy, options), outcomes,
                completed, clock, options.stopOnFirstFailure());
        HandlerCalls calls = new HandlerCalls(builder.observation, timeouts);
        this.worker = new LaneWorker(routes, ownership, calls, failures, outcomes, lanes);
        this.publishingWorker = new PublishingWorker(routes, ownership, builder.observation, completed,
                failures, outcomes, lanes);
        this.transactionalWorker = new TransactionalWorker(routes, ownership, calls, transactions, failures, outcomes,
                completed, lanes);
        this.dispatcher = new Dispatcher(store, ownership, clock, options, lanes, workers,
                worker, routes, publishingWorker, transactionalWorker, completed);
    }

    public static Builder builder() {
        return new Builder();
    }

    public ProcessingOptions options() {
        return options;
    }

    /**
     * Starts the background loop and returns once it is warm: its first fetches done (its code run, its statement
     * prepared; see {@link PollLoop#WARM_UP_FETCHES}), a fetch failed, or {@link #WARM_UP_TIMEOUT} passed. Does nothing
     * when already running.
     */
    public void start() {
        PollLoop started;
        synchronized (lifecycle) {
            if (closed) {
                throw new IllegalStateException("OutboxProcessor is closed");
            }
            if (loop != null) {
                return;
            }
            workers.prestart();
            started = new PollLoop(dispatcher, lanes, waiter, options);
            loop = started;
            poller = DaemonThreads.start("outbox-processor", started);
        }
        // Outside the lock: a stop meanwhile must not wait for the warm-up.
        try {
            if (!started.awaitWarm(WARM_UP_TIMEOUT)) {
                log.info("Outbox processor: first fetches not done within {}; starting anyway", WARM_UP_TIMEOUT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        log.info("Outbox processor started: {}", description);
    }

    public boolean isRunning() {
        synchronized (lifecycle) {
            return loop != null;
        }
    }

    /** Stops within {@link ProcessingOptions#shutdownTimeout()}; see {@link #stop(Duration)}. */
    public boolean stop() {
        return stop(options.shutdownTimeout());
    }

    /**
     * Stops taking new records and waits up to {@code timeout} for the records being handled to finish and their
     * outcomes to be stored. Handlers still running after that are interrupted; their records stay {@code NEW} and
     * are processed again later.
     *
     * @return true when every handler finished in time
     */
    public boolean stop(Duration timeout) {
        PollLoop stopped;
        Thread thread;
        synchronized (lifecycle) {
            stopped = loop;
            thread = poller;
            loop = null;
            poller = null;
        }
        if (stopped == null || thread == null) {
            return true;
        }
        stopping(true);
        stopped.stop();
        boolean drained = true;
        try {
            thread.join(joinMillis(timeout));
            if (thread.isAlive()) {
                drained = false;
                log.warn("Outbox processor: handlers still running after {}; interrupting them", timeout);
                interruptWorkers();
                thread.interrupt();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drained = false;
            interruptWorkers();
        } finally {
            stopping(false);
        }
        log.info("Outbox processor stopped");
        return drained;
    }

    /** While set, the workers start no further record (or transaction). */
    private void stopping(boolean stopping) {
        worker.stopping(stopping);
        publishingWorker.stopping(stopping);
        transactionalWorker.stopping(stopping);
    }

    /** Stops (see {@link #stop()}) and releases the worker threads for good. */
    @Override
    public void close() {
        stop();
        synchronized (lifecycle) {
            closed = true;
        }
        workers.close();
        publishingWorker.close();
        outcomes.close();
        if (timeouts != null) {
            timeouts.close();
        }
    }

    /** Asks the background loop to look for due records now instead of at the end of its wait. */
    @Override
    public void wakeUp() {
        waiter.wakeUp();
    }

    /** Wakes the background loop if this instance owns any of {@code partitions}; see {@link #wakeUp()}. */
    @Override
    public void wakeUpFor(Collection<Integer> partitions) {
        OwnedPartitions owned = ownership.ownedPartitions();
        if (partitions.stream().anyMatch(owned::contains)) {
            wakeUp();
        }
    }

    /**
     * Runs one pass in the calling thread: fetches up to {@code batch-size} due records of the owned partitions and
     * handles them (different lanes in parallel), waiting until all are done and their outcomes stored. Records of
     * lanes the background loop is handling at that moment are left to it.
     *
     * @return how many records were handed to the handler
     */
    public int processDueRecords() {
        Fetch fetch = dispatcher.fetchAndDispatch(options.batchSize());
        int handled = 0;
        for (LaneWork work : fetch.dispatched()) {
            try {
                handled += work.handled.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fetch.dispatched().forEach(LaneWork::abandon);
                return handled;
            } catch (ExecutionException e) {
                log.error("Outbox processor: a worker failed unexpectedly", e.getCause());
            }
        }
        return handled;
    }

    /** Records this processor completed (their completion stored) since it was built: its share of the drain rate. */
    public long recordsCompleted() {
        return completed.total();
    }

    /**
     * Whether a record of {@code partition} is in hand: being handled, or its outcome not stored yet. A coordinator
     * handing the partition over waits for false after it stopped giving the partition out.
     */
    public boolean isHandling(int partition) {
        return lanes.isHandling(partition);
    }

    /**
     * Interrupts running handlers, releases the lanes whose work never started, and ends the publishing batches that
     * wait for acknowledgements (their records in flight stay NEW).
     */
    private void interruptWorkers() {
        for (Runnable neverStarted : workers.interruptAll()) {
            if (neverStarted instanceof PublishBatch batch) {
                batch.lanes.forEach(lanes::release);
            } else if (neverStarted instanceof TransactionalBatch batch) {
                lanes.releaseAll(batch.lanes);
            } else if (neverStarted instanceof LaneWork work) {
                lanes.release(work);
            } else {
                neverStarted.run(); // a publishing batch woken up: with its workers gone, it gives up at once
            }
        }
        publishingWorker.abandonWaiting();
    }

    /** After every release of lanes: the poll loop may fetch, and the completion writer need wait no longer. */
    private void laneReleased() {
        waiter.released();
        outcomes.laneReleased();
    }

    /** Thread.join(0) waits forever: a zero, negative or sub-millisecond timeout waits one millisecond instead. */
    private static long joinMillis(Duration timeout) {
        try {
            return Math.max(1, timeout.toMillis());
        } catch (ArithmeticException e) {
            return timeout.isNegative() ? 1 : Long.MAX_VALUE; // too long for a long of milliseconds
        }
    }

    /** Assembles an {@link OutboxProcessor}. The record store and a handler (or routes) are required. */
    public static final class Builder {

        private @Nullable RecordStore store;
        private @Nullable HandlerRoutes routes;
        private @Nullable RecordTransactions transactions;
        private OutboxRetryPolicy retryPolicy = OutboxRetryPolicy.defaults();
        private PartitionOwnership ownership = PartitionOwnership.allPartitions();
        private OutboxListener listener = OutboxListener.NOOP;
        private OutboxObservation observation = OutboxObservation.NOOP;
        private Clock clock = Clock.systemUTC();
        private ProcessingOptions options = ProcessingOptions.defaults();
        private ThreadFactory workerThreadFactory = Executors.defaultThreadFactory();

        private Builder() {
        }

        public Builder recordStore(RecordStore store) {
            this.store = Objects.requireNonNull(store, "recordStore");
            return this;
        }

        /**
         * Transactions of the record store's database, in which transactional handlers run with their records'
         * completions; required when a route is transactional ({@link HandlerRoutes#anyTransactional()}): without
         * them, {@link #build()} fails naming those handlers.
         */
        public Builder recordTransactions(@Nullable RecordTransactions transactions) {
            this.transactions = transactions;
            return this;
        }

        /** One handler for every record, with the default retry policy and no fallback. Replaces the routes. */
        public Builder handler(OutboxRecordProcessor handler) {
            HandlerRoute route = HandlerRoute.to(Objects.requireNonNull(handler, "handler"));
            return routes(new HandlerRoutes() {
                @Override
                public HandlerRoute routeFor(OutboxRecord record) {
                    return route;
                }

                @Override
                public String toString() {
                    return handler.toString();
                }
            });
        }

        /** Routes each record to its handler, e.g. {@link dev.outbox.handler.OutboxHandlers}. Replaces the handler. */
        public Builder routes(HandlerRoutes routes) {
            this.routes = Objects.requireNonNull(routes, "routes");
            return this;
        }

        /**
         * The policy of records whose route has none; its {@link OutboxRetryPolicy#maxRetries()} also bounds route
         * policies without a bound of their own. Default: {@link OutboxRetryPolicy#defaults()}.
         */
        public Builder retryPolicy(OutboxRetryPolicy retryPolicy) {
            this.retryPolicy = Objects.requireNonNull(retryPolicy, "retryPolicy");
            return this;
        }

        /** Default: this instance owns all partitions. */
        public Builder ownership(PartitionOwnership ownership) {
            this.ownership = Objects.requireNonNull(ownership, "ownership");
            return this;
        }

        public Builder listener(OutboxListener listener) {
            this.listener = Objects.requireNonNull(listener, "listener");
            return this;
        }

        /** Wraps each handler call, e.g. in a tracing observation. Default: none. */
        public Builder observation(OutboxObservation observation) {
            this.observation = Objects.requireNonNull(observation, "observation");
            return this;
        }

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder options(ProcessingOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        /**
         * Where worker threads come from, e.g. a virtual-thread factory on Java 21+. Default: platform threads.
         * Whatever the factory, at most {@link ProcessingOptions#concurrency()} lanes are handled at once.
         */
        public Builder workerThreadFactory(ThreadFactory workerThreadFactory) {
            this.workerThreadFactory = Objects.requireNonNull(workerThreadFactory, "workerThreadFactory");
            return this;
        }

        public OutboxProcessor build() {
            return new OutboxProcessor(this);
        }
    }
}
