package dev.outbox.benchmark.node;

import dev.outbox.benchmark.BenchClock;
import java.nio.file.Path;
import org.springframework.boot.context.event.ApplicationReadyEvent;
import org.springframework.context.ApplicationListener;

/**
 * Tells the driver when the node's application is ready ({@link ApplicationReadyEvent}, what a readiness probe
 * follows): writes the {@link BenchClock} time into {@code <bench.report-file>.ready}. The latency-from-start benchmark
 * starts producing then, as a deployment sends traffic to an instance once it reports ready.
 */
final class ReadyMarker implements ApplicationListener<ApplicationReadyEvent> {

    static final String SUFFIX = ".ready";

    private final String reportFile;

    ReadyMarker(String reportFile) {
        this.reportFile = reportFile;
    }

    @Override
    public void onApplicationEvent(ApplicationReadyEvent event) {
        if (reportFile.isBlank()) {
            return;
        }
        BenchClock.writeNow(Path.of(reportFile + SUFFIX));
    }
}
