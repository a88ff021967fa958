package dev.outbox.benchmark.node;

import dev.outbox.benchmark.BenchClock;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
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
        Path file = Path.of(reportFile + SUFFIX);
        try {
            Path temporary = file.resolveSibling(file.getFileName() + ".tmp");
            Files.writeString(temporary, Long.toString(BenchClock.nowMicros()), StandardCharsets.UTF_8);
            Files.move(temporary, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not write " + file, e);
        }
    }
}
