package dev.outbox.benchmark.node;

import dev.outbox.benchmark.BenchClock;
import dev.outbox.benchmark.NodeReport;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;
import tools.jackson.databind.json.JsonMapper;

/** Writes the {@link NodeReport} file ({@code bench.report-file}) every 200 ms and a last time at shutdown. */
final class NodeReporter implements DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(NodeReporter.class);
    private static final long INTERVAL_MILLIS = 200;

    private final String instanceId;
    private final NodeState state;
    private final Path file;
    private final JsonMapper json = JsonMapper.builder().build();
    private final Thread thread;
    private boolean finished;

    NodeReporter(String instanceId, NodeState state, String file) {
        this.instanceId = instanceId;
        this.state = state;
        this.file = Path.of(file);
        this.thread = new Thread(this::loop, "bench-node-reporter");
        thread.setDaemon(true);
        if (!file.isBlank()) {
            thread.start();
        }
    }

    private void loop() {
        while (true) {
            write(false);
            try {
                Thread.sleep(INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** The last report; later periodic writes are dropped. */
    void writeFinal() {
        write(true);
    }

    private synchronized void write(boolean last) {
        if (finished || file.toString().isBlank()) {
            return;
        }
        finished = last;
        Map<String, Long> statements = state.queries.snapshot();
        NodeReport report = new NodeReport(instanceId, ProcessHandle.current().pid(), BenchClock.nowMicros(),
                state.gateOpenedAtMicros.get(), state.gateHeldAtMicros.get(),
                state.handlerCalls.get(), state.rowsRecorded.get(),
                state.rowsPending.get(), state.recordingFailures.get(), state.completed.get(), state.retries.get(),
                state.failed.get(), state.rejected.get(), statements,
                statements.values().stream().mapToLong(Long::longValue).sum(), state.connectionsBorrowed.get(), last);
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, json.writeValueAsString(report), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | RuntimeException e) {
            log.warn("Could not write the node report {}", file, e);
        }
    }

    @Override
    public void destroy() {
        thread.interrupt();
    }
}
