package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.partition.OwnedPartitions;
import dev.outbox.partition.PartitionHasher;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.DueRecordsQuery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CancellationException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The processing engine: fetches due records of the partitions this instance owns and hands them to the
 * {@link OutboxRecordProcessor}, one aggregate at a time per worker, in sequence order, with retries.
 *
 * <p>Run it in the background with {@link #start()} and {@link #stop(Duration)}, or drive it by hand with
 * {@link #processDueRecords()} (tests, batch jobs). Passes never overlap: a manual pass waits for the background one.
 */
public final class OutboxProcessor implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutboxProcessor.class);
    private static final Duration OUTAGE_LOG_INTERVAL = Duration.ofMinutes(1);
    private static final Duration FIRST_IDLE_WAIT = Duration.ofMillis(50);

    private final RecordStore store;
    private final OutboxRecordProcessor handler;
    private final OutboxRetryPolicy retryPolicy;
    private final PartitionOwnership ownership;
    private final OutboxListener listener;
    private final Clock clock;
    private final ProcessingOptions options;

    private final ReentrantLock passLock = new ReentrantLock();
    private final AtomicIntegerArray inFlight = new AtomicIntegerArray(PartitionHasher.PARTITION_COUNT);
    private final ReentrantLock signalLock = new ReentrantLock();
    private final Condition wakeUpSignal = signalLock.newCondition();
    private boolean wakeUpRequested;

    private final Object lifecycleMonitor = new Object();
    private volatile boolean running;
    private volatile boolean stopping;
    private boolean closed;
    private @Nullable Thread poller;
    private @Nullable ExecutorService workers;

    private OutboxProcessor(Builder builder) {
        this.store = Objects.requireNonNull(builder.store, "OutboxProcessor.builder(): recordStore is required");
        this.handler = Objects.requireNonNull(builder.handler, "OutboxProcessor.builder(): handler is required");
        this.retryPolicy = builder.retryPolicy;
        this.ownership = builder.ownership;
        this.listener = builder.listener;
        this.clock = builder.clock;
        this.options = builder.options;
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
            log.info("Outbox processor started: {}, retry policy {}", options, retryPolicy);
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
        synchronized (lifecycleMonitor) {
            closed = true;
            if (workers != null) {
                workers.shutdown();
                workers = null;
            }
        }
    }

    /** Asks the background loop to look for due records now instead of at the end of its poll interval. */
    public void wakeUp() {
        signalLock.lock();
        try {
            wakeUpRequested = true;
            wakeUpSignal.signalAll();
        } finally {
            signalLock.unlock();
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
     * handles them (different aggregates in parallel), waiting until all are done.
     *
     * @return how many records were handed to the handler
     */
    public int processDueRecords() {
        return runPass().handled();
    }

    private record Pass(int fetched, int handled) {
    }

    private Pass runPass() {
        passLock.lock();
        try {
            OwnedPartitions owned = ownership.ownedPartitions();
            if (owned.isEmpty()) {
                return new Pass(0, 0);
            }
            DueRecordsQuery query = new DueRecordsQuery(owned, clock.instant(), options.batchSize(),
                    options.stopOnFirstFailure());
            List<OutboxRecord> due = store.findDue(query).stream()
                    .map(record -> record.withEpoch(owned.epochOf(record.getPartition())))
                    .toList();
            if (due.isEmpty()) {
                return new Pass(0, 0);
            }
            Map<String, List<OutboxRecord>> byAggregate = new LinkedHashMap<>();
            for (OutboxRecord record : due) {
                byAggregate.computeIfAbsent(record.getAggregateId(), id -> new ArrayList<>()).add(record);
            }
            AtomicInteger handled = new AtomicInteger();
            ExecutorService executor = workers();
            AtomicBoolean cancelled = new AtomicBoolean();
            // True once stop() gave up on this pass (shutdownNow) or its caller was interrupted: handlers are then
            // interrupted on purpose, which is not a failure of their records.
            BooleanSupplier abandoned = () -> cancelled.get() || executor.isShutdown();
            List<Future<?>> futures = new ArrayList<>(byAggregate.size());
            for (List<OutboxRecord> records : byAggregate.values()) {
                futures.add(executor.submit(() -> processAggregate(records, handled, abandoned)));
            }
            awaitAll(futures, cancelled);
            return new Pass(due.size(), handled.get());
        } finally {
            passLock.unlock();
        }
    }

    /**
     * Handles the due records of one aggregate in order. Completions are stored together, in one round trip, when the
     * records are done or before a failure is stored; if that write fails the records stay NEW and run again later.
     */
    private void processAggregate(List<OutboxRecord> records, AtomicInteger handled, BooleanSupplier abandoned) {
        int partition = records.get(0).getPartition();
        // Counted before the ownership checks: a coordinator that takes the partition away and then sees nothing in
        // flight knows that no record of it will start, and that every outcome has been stored.
        inFlight.incrementAndGet(partition);
        List<Completion> completions = new ArrayList<>(records.size());
        try {
            for (OutboxRecord record : records) {
                if (stopping || abandoned.getAsBoolean() || Thread.currentThread().isInterrupted()
                        || !stillOwned(record)) {
                    return;
                }
                handled.incrementAndGet();
                long started = System.nanoTime();
                Throwable failure = invoke(record);
                Duration handlerTime = Duration.ofNanos(System.nanoTime() - started);
                if (failure == null) {
                    completions.add(new Completion(record, handlerTime));
                    continue;
                }
                if (abandoned.getAsBoolean()) {
                    // Interrupted by stop(): the record stays NEW as it was and is processed again later.
                    log.info("Outbox record {} was interrupted by shutdown; it stays NEW and will be processed again",
                            record.getId());
                    return;
                }
                storeCompletions(completions);
                storeFailure(record, failure, handlerTime);
                if (options.stopOnFirstFailure()) {
                    return;
                }
            }
        } catch (RuntimeException e) {
            // An outcome could not be stored; the record stays NEW and is handled again later.
            log.warn("Outbox aggregate {}: could not store an outcome; its records will be processed again",
                    records.get(0).getAggregateId(), e);
            completions.clear();
        } finally {
            try {
                storeCompletions(completions);
            } catch (RuntimeException e) {
                log.warn("Outbox aggregate {}: could not store {} completion(s); the records will be processed again",
                        records.get(0).getAggregateId(), completions.size(), e);
            } finally {
                inFlight.decrementAndGet(partition);
            }
        }
    }

    /** A record its handler completed, waiting to be stored with the others of its aggregate. */
    private record Completion(OutboxRecord record, Duration handlerTime) {
    }

    /** Calls the handler; returns what it threw, or null. */
    private @Nullable Throwable invoke(OutboxRecord record) {
        try {
            handler.process(record);
            return null;
        } catch (Throwable e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return e;
        }
    }

    /** Stores the completions in one round trip (deleting the rows instead when so configured) and empties the list. */
    private void storeCompletions(List<Completion> completions) {
        if (completions.isEmpty()) {
            return;
        }
        List<OutboxRecord> records = completions.stream().map(Completion::record).toList();
        List<OutboxRecord> rejected = options.deleteCompletedRecords()
                ? store.deleteCompleted(records)
                : store.markCompleted(records, clock.instant());
        for (Completion completion : completions) {
            if (rejected.contains(completion.record())) {
                rejected(completion.record());
            } else {
                listener.onCompleted(completion.record(), completion.handlerTime());
            }
        }
        completions.clear();
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

    /** Stores a failed attempt: a scheduled retry, or FAILED when retries are exhausted or refused. */
    private void storeFailure(OutboxRecord record, Throwable failure, Duration handlerTime) {
        Instant now = clock.instant();
        int retriesSoFar = record.getRetryCount();
        String error = ErrorText.of(failure);
        if (retriesSoFar < options.maxRetries() && retryPolicy.shouldRetry(failure)) {
            int retryCount = retriesSoFar + 1;
            Duration delay = retryPolicy.nextDelay(retryCount);
            Instant nextRetryAt = now.plus(delay);
            if (store.scheduleRetry(record, retryCount, nextRetryAt, error)) {
                log.warn("Outbox record {} ({}, aggregate {}) failed on attempt {}; retry {} of {} in {}: {}",
                        record.getId(), record.getEventType(), record.getAggregateId(), retriesSoFar + 1,
                        retryCount, options.maxRetries(), delay, error);
                log.debug("Failure of outbox record {}", record.getId(), failure);
                listener.onRetryScheduled(record, failure, retryCount, handlerTime);
            } else {
                rejected(record);
            }
        } else {
            if (store.markFailed(record, retriesSoFar, error)) {
                log.error("Outbox record {} ({}, aggregate {}) FAILED after {} attempt(s){}", record.getId(),
                        record.getEventType(), record.getAggregateId(), retriesSoFar + 1,
                        options.stopOnFirstFailure() ? "; later records of the aggregate wait" : "", failure);
                listener.onFailed(record, failure, handlerTime);
            } else {
                rejected(record);
            }
        }
    }

    private void rejected(OutboxRecord record) {
        log.info("Outbox record {} (partition {}, epoch {}) was changed by someone else while being handled, or the "
                + "partition has a new owner; its outcome was not stored", record.getId(), record.getPartition(),
                record.getEpoch());
        ownership.lost(record.getPartition(), record.getEpoch());
        listener.onStatusWriteRejected(record);
    }

    /**
     * Polls soon after activity, when retries and records of writers that do not wake us are likeliest, then backs off
     * by doubling to the poll interval, so an idle instance costs one query per poll interval.
     */
    private void runLoop() {
        Duration idleWait = options.pollInterval();
        Instant outageSince = null;
        Instant lastOutageLog = Instant.MIN;
        while (running) {
            Pass pass;
            try {
                pass = runPass();
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
                    log.warn("Outbox processor: fetching due records failed; retrying every {}", options.pollInterval(),
                            e);
                } else if (Duration.between(lastOutageLog, now).compareTo(OUTAGE_LOG_INTERVAL) >= 0) {
                    lastOutageLog = now;
                    log.warn("Outbox processor: fetching due records still fails after {}: {}",
                            Duration.between(outageSince, now), e.toString());
                }
                awaitWakeUp(options.pollInterval());
                continue;
            } catch (Error e) {
                log.error("Outbox processor: unexpected error; continuing", e);
                awaitWakeUp(options.pollInterval());
                continue;
            }
            if (pass.fetched() >= options.batchSize()) {
                continue; // more may be waiting
            }
            idleWait = pass.fetched() > 0 ? FIRST_IDLE_WAIT : idleWait.multipliedBy(2);
            if (idleWait.compareTo(options.pollInterval()) > 0) {
                idleWait = options.pollInterval();
            }
            awaitWakeUp(idleWait);
        }
    }

    private void awaitWakeUp(Duration timeout) {
        signalLock.lock();
        try {
            long nanos = timeout.toNanos();
            while (!wakeUpRequested && running && nanos > 0) {
                nanos = wakeUpSignal.awaitNanos(nanos);
            }
            wakeUpRequested = false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            signalLock.unlock();
        }
    }

    private void awaitAll(List<Future<?>> futures, AtomicBoolean cancelled) {
        for (Future<?> future : futures) {
            try {
                future.get();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                cancelled.set(true);
                futures.forEach(f -> f.cancel(true));
                return;
            } catch (ExecutionException e) {
                log.error("Outbox processor: a worker failed unexpectedly", e.getCause());
            } catch (CancellationException e) {
                // cancelled by stop(); the records stay NEW
            }
        }
    }

    private ExecutorService workers() {
        synchronized (lifecycleMonitor) {
            if (closed) {
                throw new IllegalStateException("OutboxProcessor is closed");
            }
            if (workers == null) {
                workers = Executors.newFixedThreadPool(options.concurrency(), new WorkerThreadFactory());
            }
            return workers;
        }
    }

    private void interruptWorkers() {
        synchronized (lifecycleMonitor) {
            if (workers != null) {
                workers.shutdownNow();
                workers = null;
            }
        }
    }

    private static final class WorkerThreadFactory implements ThreadFactory {
        private final AtomicInteger count = new AtomicInteger();

        @Override
        public Thread newThread(Runnable task) {
            Thread thread = new Thread(task, "outbox-worker-" + count.incrementAndGet());
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
        private Clock clock = Clock.systemUTC();
        private ProcessingOptions options = ProcessingOptions.defaults();

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

        public Builder clock(Clock clock) {
            this.clock = Objects.requireNonNull(clock, "clock");
            return this;
        }

        public Builder options(ProcessingOptions options) {
            this.options = Objects.requireNonNull(options, "options");
            return this;
        }

        public OutboxProcessor build() {
            return new OutboxProcessor(this);
        }
    }
}
