package dev.outbox.processing;

import dev.outbox.publish.OutboxPublisher;
import java.util.List;
import java.util.function.Consumer;

/**
 * The lanes of one fetch that go to one publisher, published together by one worker: see {@link PublishingWorker}.
 * Each lane stays in hand on its own and is released on its own.
 */
final class PublishBatch implements Runnable {

    final HandlerRoute route;
    final OutboxPublisher publisher;
    final List<LaneWork> lanes;
    private final Consumer<PublishBatch> worker;

    PublishBatch(HandlerRoute route, List<LaneWork> lanes, Consumer<PublishBatch> worker) {
        if (route.publisher() == null) {
            throw new IllegalArgumentException("route " + route + " has no publisher");
        }
        this.route = route;
        this.publisher = route.publisher();
        this.lanes = lanes;
        this.worker = worker;
    }

    @Override
    public void run() {
        worker.accept(this);
    }
}
