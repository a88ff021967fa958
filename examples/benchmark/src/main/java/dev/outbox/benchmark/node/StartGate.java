package dev.outbox.benchmark.node;

import dev.outbox.benchmark.BenchClock;
import dev.outbox.processing.OutboxProcessor;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;

/**
 * Holds processing back until the driver creates the go file ({@code bench.go-file}; open from the start without one),
 * so that a measurement starts with every node up and the partitions balanced among them, not with whichever JVM
 * happened to start first. While closed, the record store answers "nothing due" (see {@link RecordStoreGate}); the
 * node registers, heartbeats and takes its partitions as usual. When the file appears the processor is woken at once.
 */
final class StartGate implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(StartGate.class);
    private static final long WATCH_INTERVAL_MILLIS = 5;

    private final NodeState state;
    private final ObjectProvider<OutboxProcessor> processor;
    private volatile boolean open;
    private final Thread watcher;

    StartGate(String goFile, NodeState state, ObjectProvider<OutboxProcessor> processor) {
        this.state = state;
        this.processor = processor;
        this.watcher = new Thread(() -> watch(Path.of(goFile)), "bench-start-gate");
        watcher.setDaemon(true);
        if (goFile.isBlank() || Files.exists(Path.of(goFile))) {
            // open from the start: nothing to wake, the processor has not started yet
            markOpen();
        } else {
            watcher.start();
        }
    }

    boolean isOpen() {
        return open;
    }

    private void watch(Path goFile) {
        while (!Files.exists(goFile)) {
            try {
                Thread.sleep(WATCH_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
        markOpen();
        log.info("Start gate open ({} exists)", goFile);
        processor.ifAvailable(OutboxProcessor::wakeUp);
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
