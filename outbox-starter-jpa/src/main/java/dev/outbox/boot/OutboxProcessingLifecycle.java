package dev.outbox.boot;

import dev.outbox.processing.OutboxProcessor;
import org.springframework.context.SmartLifecycle;

/**
 * Starts the processing loop once the context is refreshed and stops it, draining records in flight within
 * {@code outbox.instance.graceful-shutdown-timeout-seconds}, before the context closes its beans.
 */
final class OutboxProcessingLifecycle implements SmartLifecycle {

    /** Started late and stopped early: after everything a handler may use is up, before it goes down. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private final OutboxProcessor processor;

    OutboxProcessingLifecycle(OutboxProcessor processor) {
        this.processor = processor;
    }

    @Override
    public void start() {
        processor.start();
    }

    @Override
    public void stop() {
        processor.stop();
    }

    @Override
    public boolean isRunning() {
        return processor.isRunning();
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
