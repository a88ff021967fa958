package dev.outbox.boot;

import dev.outbox.node.OutboxNode;
import org.springframework.context.SmartLifecycle;

/**
 * Runs the outbox node with the application context: started once the context is refreshed, stopped (the hand-over:
 * drain, then release the partitions) before the context closes its beans.
 */
final class OutboxNodeLifecycle implements SmartLifecycle {

    /** Started late and stopped early: after everything a handler may use is up, before it goes down. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private final OutboxNode node;

    OutboxNodeLifecycle(OutboxNode node) {
        this.node = node;
    }

    @Override
    public void start() {
        node.start();
    }

    @Override
    public void stop() {
        node.stop();
    }

    @Override
    public boolean isRunning() {
        return node.isRunning();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
