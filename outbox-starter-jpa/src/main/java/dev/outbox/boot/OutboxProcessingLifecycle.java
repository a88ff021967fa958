package dev.outbox.boot;

import dev.outbox.jpa.PostgresNotifications;
import dev.outbox.partition.ClusterCoordinator;
import dev.outbox.processing.OutboxProcessor;
import dev.outbox.retention.OutboxPurger;
import org.jspecify.annotations.Nullable;
import org.springframework.context.SmartLifecycle;

/**
 * Joins the cluster and starts the processing loop (and the purge of finished records) once the context is
 * refreshed. On shutdown it marks the instance
 * SHUTTING_DOWN, drains the records in flight within {@code outbox.instance.graceful-shutdown-timeout-seconds}, then
 * releases the partitions so other instances take them at once, before the context closes its beans.
 */
final class OutboxProcessingLifecycle implements SmartLifecycle {

    /** Started late and stopped early: after everything a handler may use is up, before it goes down. */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 2048;

    private final OutboxProcessor processor;
    private final ClusterCoordinator coordinator;
    private final @Nullable PostgresNotifications notifications;
    private final @Nullable OutboxPurger purger;

    OutboxProcessingLifecycle(OutboxProcessor processor, ClusterCoordinator coordinator,
            @Nullable PostgresNotifications notifications, @Nullable OutboxPurger purger) {
        this.processor = processor;
        this.coordinator = coordinator;
        this.notifications = notifications;
        this.purger = purger;
    }

    @Override
    public void start() {
        coordinator.start();
        processor.start();
        if (notifications != null) {
            notifications.start();
        }
        if (purger != null) {
            purger.start();
        }
    }

    @Override
    public void stop() {
        if (purger != null) {
            purger.close();
        }
        if (notifications != null) {
            notifications.close();
        }
        coordinator.beginShutdown();
        try {
            processor.stop();
        } finally {
            coordinator.close();
        }
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
