package dev.outbox.processing;

import dev.outbox.publish.OutboxPublisher;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * The lanes of one fetch that go to one publisher, published together by one worker: see {@link PublishingWorker}.
 * Each lane stays in hand on its own and is released on its own, as soon as it is done.
 */
final class PublishBatch implements Runnable {

    final HandlerRoute route;
    final OutboxPublisher publisher;
    final List<LaneWork> lanes;
    /** The workers the batch runs on, and is woken up on when it waited for acknowledgements. */
    final ExecutorService pool;
    private final Consumer<PublishBatch> worker;

    PublishBatch(HandlerRoute route, List<LaneWork> lanes, ExecutorService pool, Consumer<PublishBatch> worker) {
        if (route.publisher() == null) {
            throw new IllegalArgumentException("route " + route + " has no publisher");
        }
        this.route = route;
        this.publisher = route.publisher();
        this.lanes = lanes;
        this.pool = pool;
        this.worker = worker;
    }

    @Override
    public void run() {
        worker.accept(this);
    }
}
