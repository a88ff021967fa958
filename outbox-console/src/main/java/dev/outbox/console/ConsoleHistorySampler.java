package dev.outbox.console;

import dev.outbox.console.ConsoleOutboxes.Target;
import dev.outbox.monitoring.LatestReading;
import dev.outbox.monitoring.OutboxSnapshot;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.context.SmartLifecycle;

/**
 * Feeds each outbox's {@link ConsoleHistory} while the application runs, page open or not. The monitor refreshes only
 * when asked, so this asks it once per refresh interval: at most the monitor's own queries once per interval, and none
 * besides when metrics scrapes or health checks already keep it fresh.
 */
final class ConsoleHistorySampler implements SmartLifecycle {

    private static final Logger log = LoggerFactory.getLogger(ConsoleHistorySampler.class);
    /** How long a tick waits for the refresh it started, so that the sample is of this tick. */
    private static final Duration WAIT = Duration.ofSeconds(2);

    private final ConsoleOutboxes outboxes;
    private @Nullable ScheduledExecutorService scheduler;

    ConsoleHistorySampler(ConsoleOutboxes outboxes) {
        this.outboxes = outboxes;
    }

    @Override
    public synchronized void start() {
        if (scheduler != null) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "outbox-console-history");
            thread.setDaemon(true);
            return thread;
        });
        for (Target target : outboxes.all()) {
            // a fixed delay: each tick comes an interval after the snapshot the last one waited for, so it refreshes
            long interval = target.monitor().refreshInterval().toMillis();
            started.scheduleWithFixedDelay(() -> sample(target), 0, interval, TimeUnit.MILLISECONDS);
        }
        scheduler = started;
    }

    private static void sample(Target target) {
        try {
            LatestReading.Reading<OutboxSnapshot> reading = target.monitor().latest(WAIT);
            OutboxSnapshot snapshot = reading.value();
            if (snapshot != null) {
                target.history().record(snapshot);
            }
        } catch (RuntimeException e) {
            // a failed tick must not end the schedule; the monitor logs its own failures
            log.debug("Outbox console: sampling the history of outbox {} failed", target.name(), e);
        }
    }

    @Override
    public synchronized void stop() {
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
    }

    @Override
    public synchronized boolean isRunning() {
        return scheduler != null;
    }
}
