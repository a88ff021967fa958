package dev.outbox.benchmark.node;

import dev.outbox.benchmark.BenchClock;
import dev.outbox.processing.OutboxProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicInteger;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Holds processing back until the driver creates the go file ({@code bench.go-file}; open from the start without one),
 * so that a measurement starts with every node up and the partitions balanced among them, not with whichever JVM
 * happened to start first. While closed, the record store answers "nothing due" (see {@link RecordStoreGate}); the
 * node registers, heartbeats and takes its partitions as usual. When the file appears the processor is woken at once.
 *
 * <p>With {@code bench.hold-file} set, the gate closes again while that file exists (the warm drain: the same JVMs
 * drain a second backlog). Once no fetch is in flight any more it notes the time in {@link NodeState#gateHeldAtMicros}
 * for the driver; when the file is gone it opens and wakes the processor, as at the start.
 */
final class StartGate implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(StartGate.class);
    /** How soon an opening is seen: a drain is timed from there. */
    private static final long OPEN_WATCH_MILLIS = 5;
    /** A hold need not be seen as soon: the driver waits until every node reports it. */
    private static final long HOLD_WATCH_MILLIS = 50;

    private final NodeState state;
    private final ObjectProvider<OutboxProcessor> processor;
    private final AtomicInteger fetchesInFlight = new AtomicInteger();
    private volatile boolean open;
    private final Thread watcher;

    StartGate(String goFile, String holdFile, NodeState state, ObjectProvider<OutboxProcessor> processor) {
        this.state = state;
        this.processor = processor;
        @Nullable Path hold = holdFile.isBlank() ? null : Path.of(holdFile);
        this.watcher = new Thread(() -> watch(Path.of(goFile), hold), "bench-start-gate");
        watcher.setDaemon(true);
        if (goFile.isBlank() || Files.exists(Path.of(goFile))) {
            // open from the start: nothing to wake, the processor has not started yet
            markOpen();
        }
        if (!open || hold != null) {
            watcher.start();
        }
    }

    /**
     * Whether a fetch may go to the store; if so it counts as in flight until {@link #leave()}, so that a hold is
     * only reported once no fetch started before it can still return records.
     */
    boolean enter() {
        fetchesInFlight.incrementAndGet();
        if (open) {
            return true;
        }
        fetchesInFlight.decrementAndGet();
        return false;
    }

    /** Ends a fetch {@link #enter()} let through. */
    void leave() {
        fetchesInFlight.decrementAndGet();
    }

    private void watch(Path goFile, @Nullable Path holdFile) {
        try {
            if (!open) {
                awaitExists(goFile, true, OPEN_WATCH_MILLIS);
                markOpen();
                log.info("Start gate open ({} exists)", goFile);
                processor.ifAvailable(OutboxProcessor::wakeUp);
            }
            while (holdFile != null) {
                awaitExists(holdFile, true, HOLD_WATCH_MILLIS);
                hold();
                log.info("Start gate held ({} exists)", holdFile);
                awaitExists(holdFile, false, OPEN_WATCH_MILLIS);
                state.gateHeldAtMicros.set(0);
                open = true;
                log.info("Start gate open again ({} is gone)", holdFile);
                processor.ifAvailable(OutboxProcessor::wakeUp);
            }
        } catch (InterruptedException e) {
            // the context is closing
        }
    }

    private void hold() throws InterruptedException {
        open = false;
        while (fetchesInFlight.get() > 0) {
            Thread.sleep(1);
        }
        state.gateHeldAtMicros.set(BenchClock.nowMicros());
    }

    private static void awaitExists(Path file, boolean exists, long intervalMillis) throws InterruptedException {
        while (Files.exists(file) != exists) {
            Thread.sleep(intervalMillis);
        }
    }

    private void markOpen() {
        state.gateOpenedAtMicros.compareAndSet(0, BenchClock.nowMicros());
        open = true;
    }

    @Override
    public void destroy() {
        watcher.interrupt();
    }
}
