package dev.outbox.processing;

import dev.outbox.NonRetryableRecordException;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.RetryLaterException;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.OutboxObservation;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing engine: fetches due records of the partitions this instance owns and hands them to the
 * {@link OutboxRecordProcessor}, one aggregate at a time per worker, in sequence order, with retries.
 *
 * <p>Run it in the background with {@link #start()} and {@link #stop(Duration)}, or drive it by hand with
 * {@link #processDueRecords()} (tests, batch jobs).
 *
 * <p>The background loop is a pipeline: it fetches the next batch while the previous one is still being handled,
 * skipping aggregates already in hand, and a single writer stores the completions of many aggregates in one
 * transaction (group commit). An aggregate stays in hand until its outcomes are stored, so its later records are
 * never fetched early. After a crash, the records handed over again are the ones in hand: at most twice
 * {@link ProcessingOptions#batchSize()}.
 */
public final class OutboxProcessor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxProcessor.class);
    private static final Duration OUTAGE_LOG_INTERVAL = Duration.ofMinutes(1);
    private static final Duration FIRST_IDLE_WAIT = Duration.ofMillis(50);
    private static final int MAX_COMPLETIONS_PER_WRITE = 1000;

    private final RecordStore store;
    private final OutboxRecordProcessor handler;
    private final OutboxRetryPolicy retryPolicy;
    private final PartitionOwnership ownership;
    private final OutboxListener listener;
    private final OutboxObservation observation;
    private final Clock clock;
    private final ProcessingOptions options;

    private final @Nullable ThreadFactory workerThreadFactory;

    private final AtomicIntegerArray inFlight = new AtomicIntegerArray(PartitionHasher.PARTITION_COUNT);
    /** One fetch at a time: a fetch must know which aggregates were released while it read. */
    private final ReentrantLock fetchLock = new ReentrantLock();
    /** Guards the aggregates in hand and wake-ups; {@link #changed} signals both. */
    private final ReentrantLock stateLock = new ReentrantLock();
    private final Condition changed = stateLock.newCondition();
    private final Map<Lane, AggregateWork> busyLanes = new HashMap<>();
    private @Nullable Set<Lane> releasedDuringFetch;
    private int outstandingRecords;
    private long releaseCount;
    private boolean wakeUpRequested;

    private final Object lifecycleMonitor = new Object();
    private volatile boolean running;
    private volatile boolean stopping;
    private boolean closed;
    private @Nullable Thread poller;
    private @Nullable Engine engine;
    private @Nullable GroupCommitQueue<AggregateWork> completionWriter;

    /** Present when handler calls have a time limit. */
    private final @Nullable HandlerTimeouts timeouts;

    private OutboxProcessor(Builder builder) {
        this.store = Objects.requireNonNull(builder.store, "OutboxProcessor.builder(): recordStore is required");
        this.handler = Objects.requireNonNull(builder.handler, "OutboxProcessor.builder(): handler is required");
        this.retryPolicy = builder.retryPolicy;
        this.ownership = builder.ownership;
        this.listener = builder.listener;
        this.observation = builder.observation;
        this.clock = builder.clock;
        this.options = builder.options;
        this.workerThreadFactory = builder.workerThreadFactory;
        this.timeouts = options.handlerTimeout().map(HandlerTimeouts::new).orElse(null);
    }

    public static Builder builder() {
        return new Builder();
    }

    public ProcessingOptions options() {
        return options;
    }

    /** Starts the background loop. Does nothing when already running. */
    public void start() {
        synchronized (lifecycleMonitor) {
            if (closed) {
                throw new IllegalStateException("OutboxProcessor is closed");
            }
            if (running) {
                return;
            }
            running = true;
            stopping = false;
            Thread thread = new Thread(this::runLoop, "outbox-processor");
            thread.setDaemon(true);
            poller = thread;
            thread.start();
            log.info("Outbox processor started: {}, retry policy {}, handlers {}", options, retryPolicy, handler);
        }
    }

    public boolean isRunning() {
        return running;
    }

    /** Stops within {@link ProcessingOptions#shutdownTimeout()}; see {@link #stop(Duration)}. */
    public boolean stop() {
        return stop(options.shutdownTimeout());
    }

    /**
     * Stops taking new records and waits up to {@code timeout} for the records being handled to finish. Handlers still
     * running after that are interrupted; their records stay {@code NEW} and are processed again later.
     *
     * @return true when every handler finished in time
     */
    public boolean stop(Duration timeout) {
        Thread thread;
        synchronized (lifecycleMonitor) {
            if (!running) {
                return true;
            }
            running = false;
            stopping = true;
            thread = poller;
            poller = null;
        }
        wakeUp();
        boolean drained = true;
        try {
            if (thread != null) {
                thread.join(joinMillis(timeout));
                if (thread.isAlive()) {
                    drained = false;
                    log.warn("Outbox processor: handlers still running after {}; interrupting them", timeout);
                    interruptWorkers();
                    thread.interrupt();
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            drained = false;
            interruptWorkers();
        } finally {
            stopping = false;
        }
        log.info("Outbox processor stopped");
        return drained;
    }

    /** Thread.join(0) waits forever: a zero, negative or sub-millisecond timeout waits one millisecond instead. */
    private static long joinMillis(Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            return 1;
        }
        try {
            return Math.max(1, timeout.toMillis());
        } catch (ArithmeticException e) {
            return Long.MAX_VALUE;
        }
    }

    /** Stops (see {@link #stop()}) and releases the worker threads for good. */
    @Override
    public void close() {
        stop();
        GroupCommitQueue<AggregateWork> writer;
        synchronized (lifecycleMonitor) {
            closed = true;
            if (engine != null) {
                engine.workers().shutdown();
                engine = null;
            }
            writer = completionWriter;
            completionWriter = null;
        }
        if (writer != null) {
            writer.close(joinMillis(options.shutdownTimeout()));
        }
        if (timeouts != null) {
            timeouts.close();
        }
    }

    /** Asks the background loop to look for due records now instead of at the end of its poll interval. */
    public void wakeUp() {
        stateLock.lock();
        try {
            wakeUpRequested = true;
            changed.signalAll();
        } finally {
            stateLock.unlock();
        }
    }

    /** Wakes the background loop if this instance owns any of {@code partitions}; see {@link #wakeUp()}. */
    public void wakeUpFor(Collection<Integer> partitions) {
        OwnedPartitions owned = ownership.ownedPartitions();
        if (partitions.stream().anyMatch(owned::contains)) {
            wakeUp();
        }
    }

    /**
     * Runs one pass in the calling thread: fetches up to {@code batch-size} due records of the owned partitions and
     * handles them (different aggregates in parallel), waiting until all are done and their outcomes stored. Records
     * of aggregates the background loop is handling at that moment are left to it.
     *
     * @return how many records were handed to the handler
     */
    public int processDueRecords() {
        Fetch fetch = fetchAndDispatch(options.batchSize());
        int handled = 0;
        for (AggregateWork work : fetch.dispatched()) {
            try {
                handled += work.outcome.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fetch.dispatched().forEach(AggregateWork::abandon);
                return handled;
            } catch (ExecutionException e) {
                log.error("Outbox processor: a worker failed unexpectedly", e.getCause());
            }
        }
        return handled;
    }

    /**
     * What one fetch did: rows read, and the aggregates handed to workers. Rows of aggregates already being handled
     * are skipped; they are read again by a later fetch.
     */
    private record Fetch(int fetched, int skipped, List<AggregateWork> dispatched) {
        static final Fetch NONE = new Fetch(0, 0, List.of());
    }

    /**
     * Reads due records and hands each aggregate not already in hand to a worker. Fetches never overlap; records read
     * by one fetch while another aggregate's outcome was being stored are only dispatched if that aggregate was not
     * released meanwhile, since the rows read may predate its stored outcome.
     */
    private Fetch fetchAndDispatch(int limit) {
        fetchLock.lock();
        try {
            OwnedPartitions owned = ownership.ownedPartitions();
            if (owned.isEmpty()) {
                return Fetch.NONE;
            }
            DueRecordsQuery query = new DueRecordsQuery(owned, clock.instant(), limit, options.stopOnFirstFailure());
            Set<Lane> releasedDuringFetch = new HashSet<>();
            stateLock.lock();
            try {
                this.releasedDuringFetch = releasedDuringFetch;
            } finally {
                stateLock.unlock();
            }
            List<OutboxRecord> due;
            try {
                due = store.findDue(query);
            } catch (RuntimeException | Error e) {
                stopWatchingReleases();
                throw e;
            }
            Map<Lane, List<OutboxRecord>> byLane = new LinkedHashMap<>();
            for (OutboxRecord record : due) {
                byLane.computeIfAbsent(Lane.of(record), lane -> new ArrayList<>())
                        .add(record.withEpoch(owned.epochOf(record.getPartition())));
            }
            Engine engine;
            try {
                engine = engine();
            } catch (RuntimeException e) {
                stopWatchingReleases();
                throw e;
            }
            List<AggregateWork> dispatched = new ArrayList<>(byLane.size());
            int skipped = 0;
            stateLock.lock();
            try {
                // Releases are watched until this decision, not just until the query returned.
                this.releasedDuringFetch = null;
                for (Map.Entry<Lane, List<OutboxRecord>> lane : byLane.entrySet()) {
                    if (busyLanes.containsKey(lane.getKey())
                            || releasedDuringFetch.contains(lane.getKey())) {
                        skipped += lane.getValue().size();
                        continue;
                    }
                    AggregateWork work = new AggregateWork(lane.getKey(), lane.getValue(), engine);
                    busyLanes.put(work.lane, work);
                    outstandingRecords += work.records.size();
                    // Counted before the ownership checks: a coordinator that takes the partition away and then sees
                    // nothing in flight knows that no record of it will start, and that every outcome is stored.
                    inFlight.incrementAndGet(work.partition);
                    dispatched.add(work);
                }
            } finally {
                stateLock.unlock();
            }
            for (AggregateWork work : dispatched) {
                try {
                    engine.workers.execute(work);
                } catch (RejectedExecutionException e) {
                    release(work); // stop() gave up on the workers meanwhile; the records stay NEW
                }
            }
            return new Fetch(due.size(), skipped, dispatched);
        } finally {
            fetchLock.unlock();
        }
    }

    private void stopWatchingReleases() {
        stateLock.lock();
        try {
            releasedDuringFetch = null;
        } finally {
            stateLock.unlock();
        }
    }

    /**
     * Handles the due records of one aggregate in order. Its completions go to the group-commit writer, which stores
     * them with other aggregates' in one transaction and only then releases the aggregate; before a failure is stored,
     * the completions ahead of it are stored directly. If a write fails the records stay NEW and run again later.
     */
    private void processAggregate(AggregateWork work) {
        List<Completion> completions = new ArrayList<>(work.records.size());
        try {
            for (OutboxRecord record : work.records) {
                if (stopping || work.isAbandoned() || Thread.currentThread().isInterrupted() || !stillOwned(record)) {
                    break;
                }
                work.handled++;
                long started = System.nanoTime();
                Throwable failure = invoke(record, work);
                Duration handlerTime = Duration.ofNanos(System.nanoTime() - started);
                if (failure == null) {
                    completions.add(new Completion(record, handlerTime));
                    continue;
                }
                if (work.isAbandoned()) {
                    // Interrupted by stop(): the record stays NEW as it was and is processed again later.
                    log.info("Outbox record {} was interrupted by shutdown; it stays NEW and will be processed again",
                            record.getId());
                    break;
                }
                storeCompletions(completions);
                completions.clear();
                if (storeFailure(record, failure, handlerTime)) {
                    completions.add(new Completion(record, handlerTime));
                    continue;
                }
                if (options.stopOnFirstFailure()) {
                    break;
                }
            }
        } catch (RuntimeException e) {
            // An outcome could not be stored; the record stays NEW and is handled again later.
            log.warn("Outbox aggregate {}: could not store an outcome; its records will be processed again",
                    work.lane, e);
            completions.clear();
        }
        if (completions.isEmpty()) {
            release(work);
        } else {
            work.completions = completions;
            work.engine.completionWriter.add(work);
        }
    }

    /** Runs in the group-commit writer: stores the completions of many aggregates at once, then releases them. */
    private void storeCompletionsOf(List<AggregateWork> group) {
        List<Completion> completions = new ArrayList<>();
        for (AggregateWork work : group) {
            completions.addAll(work.completions);
        }
        try {
            storeCompletions(completions);
        } catch (RuntimeException e) {
            log.warn("Outbox processor: could not store {} completion(s) of {} aggregate(s); the records will be "
                    + "processed again", completions.size(), group.size(), e);
        } finally {
            group.forEach(this::release);
        }
    }

    /** A record its handler completed, waiting to be stored. */
    private record Completion(OutboxRecord record, Duration handlerTime) {
    }

    /**
     * Calls the handler; returns what it threw (an Error included), or null. A call past the handler timeout is
     * interrupted and fails with {@link HandlerTimeoutException}. Afterwards the worker's interrupt flag is cleared,
     * whoever set it (the handler itself, or the timeout), unless stop() gave up on the work: a stale flag would make
     * the storing of the outcome fail, and the record would run again without its failure ever being recorded.
     */
    private @Nullable Throwable invoke(OutboxRecord record, AggregateWork work) {
        HandlerTimeouts.Deadline deadline = timeouts == null ? null : timeouts.start(Thread.currentThread());
        Throwable failure = null;
        try {
            observation.observeProcessing(record, () -> handler.process(record));
        } catch (Throwable e) {
            failure = e;
        }
        boolean timedOut = deadline != null && deadline.finish();
        if (work.isAbandoned()) {
            Thread.currentThread().interrupt();
            return failure;
        }
        if (Thread.interrupted() && !timedOut) {
            log.debug("Outbox record {}: the handler left its thread interrupted; cleared", record.getId());
        }
        if (timedOut && failure != null) {
            return new HandlerTimeoutException(timeouts.timeout(), failure);
        }
        return failure;
    }

    /** Stores the completions in one round trip and one transaction (deleting the rows instead when so configured). */
    private void storeCompletions(List<Completion> completions) {
        if (completions.isEmpty()) {
            return;
        }
        List<OutboxRecord> records = completions.stream().map(Completion::record).toList();
        List<OutboxRecord> rejected = options.deleteCompletedRecords()
                ? store.deleteCompleted(records)
                : store.markCompleted(records, clock.instant());
        Set<OutboxRecord> notStored = rejected.isEmpty() ? Set.of() : new HashSet<>(rejected);
        for (Completion completion : completions) {
            if (notStored.contains(completion.record())) {
                rejected(completion.record());
            } else {
                listener.onCompleted(completion.record(), completion.handlerTime());
            }
        }
    }

    /** The aggregate's outcomes are stored (or given up): its later records may be fetched and dispatched again. */
    private void release(AggregateWork work) {
        if (!work.released.compareAndSet(false, true)) {
            return;
        }
        stateLock.lock();
        try {
            busyLanes.remove(work.lane);
            if (releasedDuringFetch != null) {
                releasedDuringFetch.add(work.lane);
            }
            outstandingRecords -= work.records.size();
            releaseCount++;
            changed.signalAll();
        } finally {
            stateLock.unlock();
        }
        inFlight.decrementAndGet(work.partition);
        work.outcome.complete(work.handled);
    }

    private boolean stillOwned(OutboxRecord record) {
        OwnedPartitions owned = ownership.ownedPartitions();
        return owned.contains(record.getPartition()) && owned.epochOf(record.getPartition()) == record.getEpoch();
    }

    /**
     * Whether a record of {@code partition} is being handled right now. A coordinator handing the partition over waits
     * for false after it stopped giving the partition out.
     */
    public boolean isHandling(int partition) {
        return inFlight.get(partition) > 0;
    }

    /**
     * Stores a failed attempt: a scheduled retry, or FAILED when retries are exhausted or refused and the handler's
     * fallback did not take the record.
     *
     * @return true when the fallback took the record: it is then stored as a completion, like a success
     */
    private boolean storeFailure(OutboxRecord record, Throwable failure, Duration handlerTime) {
        Instant now = clock.instant();
        int retriesSoFar = record.getRetryCount();
        String error = ErrorText.of(failure);
        if (failure instanceof HandlerInvocationException notCalled) {
            // The handler never ran: not the record's failure, so no attempt is used.
            if (store.scheduleRetry(record, retriesSoFar, now.plus(HandlerInvocationException.RETRY_DELAY), error)) {
                log.error("Outbox record {} ({}, aggregate {}) waits {}: {}", record.getId(), record.getEventType(),
                        record.getAggregateId(), HandlerInvocationException.RETRY_DELAY, notCalled.getMessage());
            } else {
                rejected(record);
            }
            return false;
        }
        if (failure instanceof RetryLaterException later) {
            // The handler asked to come back later: the same retry count, so the attempt does not count.
            if (store.scheduleRetry(record, retriesSoFar, now.plus(later.delay()), error)) {
                log.info("Outbox record {} ({}, aggregate {}) postponed by its handler for {}: {}", record.getId(),
                        record.getEventType(), record.getAggregateId(), later.delay(), later.getMessage());
            } else {
                rejected(record);
            }
            return false;
        }
        OutboxRetryPolicy policy = retryPolicyOf(record);
        int maxRetries = policy.maxRetries().orElse(options.maxRetries());
        boolean retryable = !(failure instanceof NonRetryableRecordException) && policy.shouldRetry(failure);
        if (retriesSoFar < maxRetries && retryable) {
            int retryCount = retriesSoFar + 1;
            Duration delay = policy.nextDelay(retryCount);
            if (store.scheduleRetry(record, retryCount, now.plus(delay), error)) {
                log.warn("Outbox record {} ({}, aggregate {}) failed on attempt {}; retry {} of {} in {}: {}",
                        record.getId(), record.getEventType(), record.getAggregateId(), retriesSoFar + 1,
                        retryCount, maxRetries, delay, error);
                log.debug("Failure of outbox record {}", record.getId(), failure);
                listener.onRetryScheduled(record, failure, retryCount, handlerTime);
            } else {
                rejected(record);
            }
            return false;
        }
        try {
            if (handler.fallback(record, failure)) {
                log.warn("Outbox record {} ({}, aggregate {}) failed after {} attempt(s) and was taken by its "
                        + "fallback: {}", record.getId(), record.getEventType(), record.getAggregateId(),
                        retriesSoFar + 1, error);
                return true;
            }
        } catch (Throwable fallbackFailure) {
            if (fallbackFailure instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            error = ErrorText.truncate(error + "; the fallback failed too: " + ErrorText.of(fallbackFailure),
                    OutboxRecord.MAX_ERROR_LENGTH);
            if (fallbackFailure != failure) {
                failure.addSuppressed(fallbackFailure);
            }
        }
        if (store.markFailed(record, retriesSoFar, error)) {
            log.error("Outbox record {} ({}, aggregate {}) FAILED after {} attempt(s){}", record.getId(),
                    record.getEventType(), record.getAggregateId(), retriesSoFar + 1,
                    options.stopOnFirstFailure() ? "; later records of the aggregate wait" : "", failure);
            listener.onFailed(record, failure, handlerTime);
        } else {
            rejected(record);
        }
        return false;
    }

    private OutboxRetryPolicy retryPolicyOf(OutboxRecord record) {
        OutboxRetryPolicy own = handler.retryPolicyFor(record);
        return own == null ? retryPolicy : own;
    }

    private void rejected(OutboxRecord record) {
        log.info("Outbox record {} (partition {}, epoch {}) was changed by someone else while being handled, or the "
                + "partition has a new owner; its outcome was not stored", record.getId(), record.getPartition(),
                record.getEpoch());
        ownership.lost(record.getPartition(), record.getEpoch());
        listener.onStatusWriteRejected(record);
    }

    /**
     * Keeps the pipeline full: fetches again as soon as the records in hand drop to half a batch, without waiting for
     * the slowest aggregate. When nothing is due it polls soon after activity, when retries and records of writers
     * that do not wake us are likeliest, then backs off by doubling to the poll interval, so an idle instance costs
     * one query per poll interval.
     */
    private void runLoop() {
        Duration idleWait = options.pollInterval();
        Instant outageSince = null;
        Instant lastOutageLog = Instant.MIN;
        try {
            while (running) {
                awaitRoomForAnotherBatch();
                if (!running) {
                    break;
                }
                // Room for a batch beyond the half batch that may still be in hand, whose rows the fetch also reads.
                // Always the same, so that the database sees one statement text.
                int limit = options.batchSize() + options.batchSize() / 2;
                Fetch fetch;
                try {
                    fetch = fetchAndDispatch(limit);
                    if (outageSince != null) {
                        log.info("Outbox processor: the record store answers again after {}",
                                Duration.between(outageSince, Instant.now()));
                        outageSince = null;
                    }
                } catch (RuntimeException e) {
                    Instant now = Instant.now();
                    if (outageSince == null) {
                        outageSince = now;
                        lastOutageLog = now;
                        log.warn("Outbox processor: fetching due records failed; retrying every {}",
                                options.pollInterval(), e);
                    } else if (Duration.between(lastOutageLog, now).compareTo(OUTAGE_LOG_INTERVAL) >= 0) {
                        lastOutageLog = now;
                        log.warn("Outbox processor: fetching due records still fails after {}: {}",
                                Duration.between(outageSince, now), e.toString());
                    }
                    awaitWakeUp(options.pollInterval(), false);
                    continue;
                } catch (Error e) {
                    log.error("Outbox processor: unexpected error; continuing", e);
                    awaitWakeUp(options.pollInterval(), false);
                    continue;
                }
                if (fetch.dispatched().isEmpty() && fetch.skipped() > 0) {
                    // Everything due belongs to aggregates in hand: fetch again once one of them is released.
                    awaitWakeUp(options.pollInterval(), true);
                } else if (fetch.fetched() >= limit) {
                    idleWait = FIRST_IDLE_WAIT; // more may be waiting
                } else if (fetch.skipped() > 0) {
                    awaitWakeUp(FIRST_IDLE_WAIT, true); // later records of aggregates in hand are due
                } else {
                    idleWait = fetch.fetched() > 0 ? FIRST_IDLE_WAIT : min(idleWait.multipliedBy(2),
                            options.pollInterval());
                    awaitWakeUp(idleWait, false);
                }
            }
            awaitNothingInHand();
        } finally {
            synchronized (lifecycleMonitor) {
                lifecycleMonitor.notifyAll();
            }
        }
    }

    private static Duration min(Duration a, Duration b) {
        return a.compareTo(b) <= 0 ? a : b;
    }

    /** Waits while more than half a batch of records is in hand. */
    private void awaitRoomForAnotherBatch() {
        stateLock.lock();
        try {
            while (running && outstandingRecords > options.batchSize() / 2) {
                changed.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            stateLock.unlock();
        }
    }

    /** Waits until every dispatched aggregate is released: handled, and its outcomes stored. */
    private void awaitNothingInHand() {
        stateLock.lock();
        try {
            while (outstandingRecords > 0) {
                changed.await();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stateLock.unlock();
        }
    }

    /** Waits for {@link #wakeUp()}, a stop, the timeout, or, when {@code orRelease}, an aggregate's release. */
    private void awaitWakeUp(Duration timeout, boolean orRelease) {
        stateLock.lock();
        try {
            long releases = releaseCount;
            long nanos = timeout.toNanos();
            while (!wakeUpRequested && running && nanos > 0 && !(orRelease && releaseCount != releases)) {
                nanos = changed.awaitNanos(nanos);
            }
            wakeUpRequested = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            stateLock.unlock();
        }
    }

    /** The worker pool and the completion writer, created on first use; the pool is replaced after an interrupt. */
    private Engine engine() {
        synchronized (lifecycleMonitor) {
            if (closed) {
                throw new IllegalStateException("OutboxProcessor is closed");
            }
            if (completionWriter == null) {
                completionWriter = new GroupCommitQueue<>("outbox-completions", this::storeCompletionsOf,
                        work -> work.records.size(), MAX_COMPLETIONS_PER_WRITE);
            }
            if (engine == null) {
                ExecutorService pool = Executors.newFixedThreadPool(options.concurrency(),
                        new WorkerThreadFactory(workerThreadFactory));
                engine = new Engine(pool, completionWriter);
            }
            return engine;
        }
    }

    /** Interrupts running handlers and releases the aggregates whose work never started. */
    private void interruptWorkers() {
        Engine interrupted;
        synchronized (lifecycleMonitor) {
            interrupted = engine;
            engine = null;
        }
        if (interrupted != null) {
            for (Runnable neverStarted : interrupted.workers.shutdownNow()) {
                release((AggregateWork) neverStarted);
            }
        }
    }

    /** Workers and the writer they hand completions to. A pool that was shut down marks its work abandoned. */
    private record Engine(ExecutorService workers, GroupCommitQueue<AggregateWork> completionWriter) {
    }

    /**
     * What is processed in order: the records of one aggregate for one handler. Handlers subscribed to the same event
     * type have lanes of their own, so one handler's failure neither blocks nor re-runs another.
     */
    private record Lane(String aggregateId, @Nullable String handlerId) {
        static Lane of(OutboxRecord record) {
            return new Lane(record.getAggregateId(), record.getHandlerId());
        }

        @Override
        public String toString() {
            return handlerId == null ? aggregateId : aggregateId + " (handler " + handlerId + ")";
        }
    }

    /** The records of one lane (an aggregate, for one handler) from one fetch, handled by one worker in order. */
    private final class AggregateWork implements Runnable {
        final Lane lane;
        final List<OutboxRecord> records;
        final int partition;
        final Engine engine;
        final CompletableFuture<Integer> outcome = new CompletableFuture<>();
        final AtomicBoolean released = new AtomicBoolean();
        volatile boolean abandoned;
        int handled;
        List<Completion> completions = List.of();

        AggregateWork(Lane lane, List<OutboxRecord> records, Engine engine) {
            this.lane = lane;
            this.records = records;
            this.partition = records.get(0).getPartition();
            this.engine = engine;
        }

        /**
         * True once stop() gave up on the workers (shutdownNow) or a manual pass's caller was interrupted: handlers
         * are then interrupted on purpose, which is not a failure of their records.
         */
        boolean isAbandoned() {
            return abandoned || engine.workers.isShutdown();
        }

        void abandon() {
            abandoned = true;
        }

        @Override
        public void run() {
            try {
                processAggregate(this);
            } catch (RuntimeException | Error e) {
                log.error("Outbox processor: a worker failed unexpectedly", e);
                release(this);
            }
        }
    }

    private static final class WorkerThreadFactory implements ThreadFactory {
        private final ThreadFactory threads;
        private final AtomicInteger count = new AtomicInteger();

        WorkerThreadFactory(@Nullable ThreadFactory threads) {
            this.threads = threads == null ? Executors.defaultThreadFactory() : threads;
        }

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = threads.newThread(task);
            thread.setName("outbox-worker-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        }
    }

    /** Assembles an {@link OutboxProcessor}. Record store and handler are required. */
    public static final class Builder {

        private @Nullable RecordStore store;
        private @Nullable OutboxRecordProcessor handler;
        private OutboxRetryPolicy retryPolicy = OutboxRetryPolicy.exponential(Duration.ofSeconds(2),
                Duration.ofMinutes(1), 2.0);
        private PartitionOwnership ownership = PartitionOwnership.allPartitions();
        private OutboxListener listener = OutboxListener.NOOP;
        private OutboxObservation observation = OutboxObservation.NOOP;
        private Clock clock = Clock.systemUTC();
        private ProcessingOptions options = ProcessingOptions.defaults();
        private @Nullable ThreadFactory workerThreadFactory;

        private Builder() {
        }

        public Builder recordStore(RecordStore store) {
            this.store = Objects.requireNonNull(store, "recordStore");
            return this;
        }

        public Builder handler(OutboxRecordProcessor handler) {
            this.handler = Objects.requireNonNull(handler, "handler");
            return this;
        }

        /** Default: exponential, 2 s doubling up to 1 min. */
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
         * Whatever the factory, at most {@link ProcessingOptions#concurrency()} aggregates are handled at once.
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
