package dev.outbox.processing;

import dev.outbox.spi.Delivery;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

/**
 * The records of one lane from one fetch, handled by one worker in order. The lane stays in hand until the outcomes
 * are stored, or given up: then it is released, and {@link #handled} says how many records reached the handler.
 */
final class LaneWork implements Runnable {

    final Lane lane;
    final List<Delivery> deliveries;
    final int partition;
    /** Completes with the number of records handed to the handler when the lane is released. */
    final CompletableFuture<Integer> handled = new CompletableFuture<>();
    final AtomicBoolean released = new AtomicBoolean();
    /** Guarded by the lane table's lock: the lane waits for a slow acknowledgement; see {@link LaneTable#waiting}. */
    boolean waiting;
    private final ExecutorService pool;
    private final Consumer<LaneWork> worker;
    private volatile boolean abandoned;
    /** Worker thread only: records handed to the handler so far. */
    int calls;
    /** Worker thread, then the completion writer: completions waiting to be stored. */
    List<Completion> completions = List.of();

    LaneWork(Lane lane, List<Delivery> deliveries, ExecutorService pool, Consumer<LaneWork> worker) {
        this.lane = lane;
        this.deliveries = deliveries;
        this.partition = deliveries.get(0).fence().partition();
        this.pool = pool;
        this.worker = worker;
    }

    /**
     * True once stop() gave up on the workers (shutdownNow) or a manual pass's caller was interrupted: handlers are
     * then interrupted on purpose, which is not a failure of their records.
     */
    boolean isAbandoned() {
        return abandoned || pool.isShutdown();
    }

    void abandon() {
        abandoned = true;
    }

    @Override
    public void run() {
        worker.accept(this);
    }

    /** A record its handler completed (or its fallback took), waiting to be stored. */
    record Completion(Delivery delivery, Duration handlerTime) {
    }
}
