package dev.outbox.processing;

import dev.outbox.OutboxRecord;
import dev.outbox.partition.PartitionOwnership;
import dev.outbox.processing.FailureDecision.Defer;
import dev.outbox.processing.FailureDecision.Postpone;
import dev.outbox.processing.FailureDecision.Retry;
import dev.outbox.processing.LaneWork.Completion;
import dev.outbox.spi.Delivery;
import dev.outbox.spi.OutboxListener;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Stores what became of handled records, and tells the listener.
 *
 * <p><b>Group commit.</b> Completions go through a {@link GroupCommitQueue}: one writer thread stores the completions
 * of every lane handled meanwhile in one statement and one transaction (or deletes the rows, with
 * {@code delete-completed-records}), and only then releases those lanes. Failures are stored by the lane's worker at
 * once, after the completions ahead of them. While other lanes in hand are still being worked (the rest of a dispatch,
 * say), the writer waits up to {@link #COMPLETION_LINGER} for their completions: a fetch's lanes, finished within a
 * moment of each other, are then stored in one write rather than in a write of the first and one of the others.
 *
 * <p><b>Refused writes.</b> A write the store refuses (the partition's fence moved, or someone else changed the row)
 * leaves the record to whoever owns it now: the ownership is told the partition was lost, and the listener counts it.
 */
final class OutcomeWriter implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(OutcomeWriter.class);
    private static final int MAX_COMPLETIONS_PER_WRITE = 1000;
    /** The longest a completion waits for those of lanes still being worked, to be stored with them. */
    static final Duration COMPLETION_LINGER = Duration.ofMillis(1);

    private final RecordStore store;
    private final PartitionOwnership ownership;
    private final OutboxListener listener;
    private final Clock clock;
    private final boolean deleteCompleted;
    private final boolean stopOnFirstFailure;
    private final LaneTable lanes;
    private final Duration closeTimeout;
    /** The handler ids (and, for records addressed to none, event types) whose deferral was logged at WARN. */
    private final Set<String> deferralsLogged = ConcurrentHashMap.newKeySet();
    private final Duration linger;
    /** Created under this object's lock; read without it by {@link #laneReleased()}. */
    private volatile @Nullable GroupCommitQueue<LaneWork> completions;
    /** Records of the lanes handed to the completion queue and not yet released: no longer being worked. */
    private final AtomicInteger recordsHandedOver = new AtomicInteger();
    private boolean closed;

    OutcomeWriter(RecordStore store, PartitionOwnership ownership, OutboxListener listener, Clock clock,
            ProcessingOptions options, LaneTable lanes) {
        this(store, ownership, listener, clock, options, lanes, COMPLETION_LINGER);
    }

    OutcomeWriter(RecordStore store, PartitionOwnership ownership, OutboxListener listener, Clock clock,
            ProcessingOptions options, LaneTable lanes, Duration linger) {
        this.store = store;
        this.ownership = ownership;
        this.listener = listener;
        this.clock = clock;
        this.deleteCompleted = options.deleteCompletedRecords();
        this.stopOnFirstFailure = options.stopOnFirstFailure();
        this.lanes = lanes;
        this.closeTimeout = options.shutdownTimeout();
        this.linger = linger;
    }

    /** Stores the lane's completions with other lanes' on the writer thread, then releases the lane. */
    void completeAndRelease(LaneWork work) {
        GroupCommitQueue<LaneWork> queue = queue();
        if (queue == null) {
            completeAll(List.of(work)); // closed before any completion: store it here
        } else {
            recordsHandedOver.addAndGet(work.deliveries.size()); // the queue's writer counts it back
            queue.add(work);
        }
    }

    /**
     * A lane was released, perhaps without completions (a failure, a stop): a writer waiting for the lanes being
     * worked asks again rather than at the end of its linger.
     */
    void laneReleased() {
        GroupCommitQueue<LaneWork> queue = completions;
        if (queue != null) {
            queue.nudge();
        }
    }

    /** Stores completions now, in one round trip and one transaction; used before a failure of the same lane. */
    void complete(List<Completion> done) {
        if (done.isEmpty()) {
            return;
        }
        List<Delivery> deliveries = new ArrayList<>(done.size());
        done.forEach(completion -> deliveries.add(completion.delivery()));
        List<Delivery> refused = writeCompletions(deliveries);
        Set<Delivery> notStored = refused.isEmpty() ? Set.of() : new HashSet<>(refused);
        for (Completion completion : done) {
            if (notStored.contains(completion.delivery())) {
                refused(completion.delivery());
            } else {
                listener.onCompleted(completion.delivery().record(), completion.handlerTime());
            }
        }
    }

    /**
     * Marks the deliveries COMPLETED, or deletes them with {@code delete-completed-records}: the store's write alone,
     * the listener not told. A transactional worker calls it inside its transaction, and tells after the commit.
     *
     * @return the deliveries whose write did not take effect
     */
    List<Delivery> writeCompletions(List<Delivery> deliveries) {
        return deleteCompleted ? store.deleteCompleted(deliveries) : store.markCompleted(deliveries, clock.instant());
    }

    /** Due again later with the same retry count: the handler asked for it, or was never called. */
    void postpone(Delivery delivery, Postpone postpone) {
        OutboxRecord record = delivery.record();
        if (!store.scheduleRetry(delivery, record.getRetryCount(), clock.instant().plus(postpone.delay()),
                postpone.error())) {
            refused(delivery);
        } else if (postpone.notCalled()) {
            log.error("Outbox record {} ({}, aggregate {}) waits {}: {}", record.getId(), record.getEventType(),
                    record.getAggregateId(), postpone.delay(), postpone.error());
        } else {
            log.info("Outbox record {} ({}, aggregate {}) postponed by its handler for {}: {}", record.getId(),
                    record.getEventType(), record.getAggregateId(), postpone.delay(), postpone.error());
        }
    }

    /**
     * Due again later with the same retry count, for an instance that takes it; the store keeps the time of the first
     * deferral, from which the maximum deferral counts. Logged at WARN once per handler id this instance lacks, then
     * at DEBUG: a rolling deploy defers many records.
     */
    void defer(Delivery delivery, Defer defer) {
        OutboxRecord record = delivery.record();
        Instant now = clock.instant();
        if (!store.defer(delivery, now.plus(defer.delay()), defer.error(), now)) {
            refused(delivery);
            return;
        }
        String key = record.getHandlerId() != null ? record.getHandlerId() : "event type " + record.getEventType();
        if (deferralsLogged.add(key)) {
            log.warn("Outbox: deferring records no handler of this instance takes, for an instance of another version "
                    + "to handle (later records of their aggregates wait; due again for an instance that has the handler "
                    + "after {}); first: {}",
                    defer.delay(), defer.error());
        } else {
            log.debug("Outbox record {} deferred for {}: {}", record.getId(), defer.delay(), defer.error());
        }
    }

    void retry(Delivery delivery, Retry retry, Throwable failure, Duration handlerTime) {
        OutboxRecord record = delivery.record();
        if (!store.scheduleRetry(delivery, retry.retryCount(), clock.instant().plus(retry.delay()), retry.error())) {
            refused(delivery);
            return;
        }
        log.warn("Outbox record {} ({}, aggregate {}) failed on attempt {}; retry {} of {} in {}: {}", record.getId(),
                record.getEventType(), record.getAggregateId(), record.getRetryCount() + 1, retry.retryCount(),
                retry.maxRetries(), retry.delay(), retry.error());
        log.debug("Failure of outbox record {}", record.getId(), failure);
        listener.onRetryScheduled(record, failure, retry.retryCount(), handlerTime);
    }

    /** Stores the record as FAILED: it holds back its aggregate under stop-on-first-failure. */
    void fail(Delivery delivery, String error, Throwable failure, Duration handlerTime) {
        OutboxRecord record = delivery.record();
        if (!store.markFailed(delivery, record.getRetryCount(), error)) {
            refused(delivery);
            return;
        }
        log.error("Outbox record {} ({}, aggregate {}) FAILED after {} attempt(s){}", record.getId(),
                record.getEventType(), record.getAggregateId(), record.getRetryCount() + 1,
                stopOnFirstFailure ? "; later records of the aggregate wait" : "", failure);
        listener.onFailed(record, failure, handlerTime);
    }

    /** Writes what is queued and stops the writer thread. */
    @Override
    public void close() {
        GroupCommitQueue<LaneWork> queue;
        synchronized (this) {
            closed = true;
            queue = completions;
        }
        if (queue != null) {
            queue.close(Math.max(1, closeTimeout.toMillis()));
        }
    }

    /** Runs on the writer thread: stores the completions of many lanes at once, then releases them. */
    private void completeAll(List<LaneWork> group) {
        List<Completion> done = new ArrayList<>();
        group.forEach(work -> done.addAll(work.completions));
        try {
            complete(done);
        } catch (RuntimeException e) {
            log.warn("Outbox processor: could not store {} completion(s) of {} lane(s); the records will be "
                    + "processed again", done.size(), group.size(), e);
        } finally {
            lanes.releaseAll(group);
        }
    }

    /** The queue's writer: {@link #completeAll}, then the lanes no longer count as handed over. */
    private void completeHandedOver(List<LaneWork> group) {
        try {
            completeAll(group);
        } finally {
            int records = 0;
            for (LaneWork work : group) {
                records += work.deliveries.size();
            }
            recordsHandedOver.addAndGet(-records);
        }
    }

    /** A write of the delivery's outcome was refused: the partition is given up, and the listener told. */
    void refused(Delivery delivery) {
        log.info("Outbox record {} ({}) was changed by someone else while being handled, or the partition has a "
                + "new owner; its outcome was not stored", delivery.id(), delivery.fence());
        ownership.lost(delivery.fence());
        listener.onStatusWriteRejected(delivery.record());
    }

    /**
     * The completion queue, created on first use; null when closed before. A closed queue stores what it is given in
     * the caller's thread.
     */
    private synchronized @Nullable GroupCommitQueue<LaneWork> queue() {
        if (completions == null && !closed) {
            completions = new GroupCommitQueue<>("outbox-completions", this::completeHandedOver,
                    work -> work.completions.size(), MAX_COMPLETIONS_PER_WRITE,
                    () -> lanes.recordsInWork() > recordsHandedOver.get(), linger);
        }
        return completions;
    }
}
