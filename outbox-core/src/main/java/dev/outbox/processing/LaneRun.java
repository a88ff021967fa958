package dev.outbox.processing;

import dev.outbox.processing.LaneWork.Completion;
import java.util.ArrayList;
import java.util.List;

/** One lane's progress through a {@link PublishingWorker} batch; confined to the thread that runs the batch. */
final class LaneRun {
    final LaneWork work;
    final List<Completion> done = new ArrayList<>();
    int next;
    boolean stopped;
    boolean inFlight;
    boolean released;
    /** Marked waiting in the lane table: its record in flight waits for its acknowledgement. */
    boolean waiting;

    LaneRun(LaneWork work) {
        this.work = work;
    }

    boolean hasNext() {
        return !stopped && next < work.deliveries.size();
    }
}
