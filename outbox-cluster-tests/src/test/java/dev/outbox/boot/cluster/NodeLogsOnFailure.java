package dev.outbox.boot.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Appends the last 50 lines of every node's log ({@link ClusterHarness#logDirectory(String)} of the test method) to a
 * failing test's message, so that a failure on a build server explains itself.
 */
final class NodeLogsOnFailure implements TestExecutionExceptionHandler {

    private static final int LINES = 50;

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
        if (failure instanceof TestAbortedException) {
            throw failure;
        }
        List<Path> logs = logsOf(ClusterHarness.logDirectory(context.getRequiredTestMethod().getName()));
        if (logs.isEmpty()) {
            throw failure;
        }
        StringBuilder message = new StringBuilder(String.valueOf(failure.getMessage()));
        for (Path log : logs) {
            message.append("\n\n---- last ").append(LINES).append(" lines of ").append(log).append(" ----\n")
                    .append(ClusterNode.lastLines(log, LINES));
        }
        AssertionError withLogs = new AssertionError(message.toString(), failure);
        withLogs.setStackTrace(failure.getStackTrace());
        throw withLogs;
    }

    private static List<Path> logsOf(Path directory) {
        if (!Files.isDirectory(directory)) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(directory)) {
            return files.filter(file -> file.getFileName().toString().endsWith(".log")).sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
