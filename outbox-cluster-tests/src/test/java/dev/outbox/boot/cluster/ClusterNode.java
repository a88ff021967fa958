package dev.outbox.boot.cluster;

import java.io.File;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.StandardOpenOption;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A {@link ClusterNodeApplication} running as a JVM of its own, its output going to a log file. Signals go to the JVM's
 * own PID (it is started directly, not through a shell).
 */
final class ClusterNode {

    private static final Duration EXIT_DEADLINE = Duration.ofSeconds(30);
    private static final Set<ClusterNode> RUNNING = ConcurrentHashMap.newKeySet();
    /** The system property with Spring Security's jars, for nodes that sign users in. */
    static final String SECURITY_JARS_PROPERTY = "cluster.security-jars";

    static {
        // Last resort when the test JVM is shut down in the middle of a test; see also the node's parent watchdog.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(ClusterNode::destroyForcibly),
                "cluster-node-reaper"));
    }

    private final String id;
    private final Process process;
    private final Path log;

    private ClusterNode(String id, Process process, Path log) {
        this.id = id;
        this.process = process;
        this.log = log;
    }

    /**
     * Starts the JVM with the test's class path, plus Spring Security's jars when {@code withSpringSecurity};
     * {@code arguments} are Spring Boot command-line arguments.
     */
    static ClusterNode start(String id, Path log, List<String> arguments, boolean withSpringSecurity) {
        String classPath = System.getProperty("java.class.path");
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m",
                // Small and quick to start: two cores are shared by up to five JVMs and PostgreSQL.
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", withSpringSecurity ? classPath + File.pathSeparator + springSecurityClassPath() : classPath,
                ClusterNodeApplication.class.getName()));
        command.addAll(arguments);
        try {
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            ClusterNode node = new ClusterNode(id, process, log);
            RUNNING.add(node);
            return node;
        } catch (IOException e) {
            throw new IllegalStateException("Could not start " + id, e);
        }
    }

    /**
     * Spring Security's jars, which the build keeps off the test JVM's class path (with them there, Spring Boot would
     * secure every endpoint of a test's own web application) and names in {@value #SECURITY_JARS_PROPERTY}.
     */
    private static String springSecurityClassPath() {
        String jars = System.getProperty(SECURITY_JARS_PROPERTY, "");
        if (jars.isBlank() || jars.startsWith("${")) {
            throw new IllegalStateException("The system property " + SECURITY_JARS_PROPERTY + " names no jars ('"
                    + jars + "'); outbox-cluster-tests' pom sets it for Surefire");
        }
        return jars;
    }

    String id() {
        return id;
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Fails when the JVM has ended on its own: waiting for it any longer would only hide why. */
    void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException(id + " (pid " + pid() + ") exited with code " + process.exitValue()
                    + "; see " + log);
        }
    }

    /** Sends a signal with {@code kill}, e.g. "KILL", "STOP", "CONT". */
    void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid()))
                    .redirectErrorStream(true)
                    .start();
            if (!kill.waitFor(10, TimeUnit.SECONDS)) {
                kill.destroyForcibly();
                throw new IllegalStateException("kill -" + signal + " " + pid() + " did not return");
            }
            if (kill.exitValue() != 0) {
                String output = new String(kill.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
                throw new IllegalStateException("kill -" + signal + " " + pid() + " failed: " + output);
            }
        } catch (IOException e) {
            throw new IllegalStateException("Could not run kill -" + signal + " " + pid(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while sending " + signal + " to " + id, e);
        }
    }

    /** SIGTERM through {@link Process#destroy()}: the JVM runs its shutdown hooks, so Spring closes the context. */
    void terminate() {
        process.destroy();
    }

    /** Waits for the JVM to end and returns its exit code. */
    int awaitExit(Duration deadline) {
        try {
            if (!process.waitFor(deadline.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException(id + " (pid " + pid() + ") still runs after " + deadline);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while waiting for " + id + " to exit", e);
        }
        RUNNING.remove(this);
        return process.exitValue();
    }

    /**
     * Kills the JVM and anything it started (SIGKILL also ends a stopped process) and waits for it to be gone. Works
     * on an interrupted thread too, so a timed-out test still cleans up.
     */
    void destroyForcibly() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        boolean interrupted = false;
        long deadline = System.nanoTime() + EXIT_DEADLINE.toNanos();
        while (process.isAlive() && System.nanoTime() < deadline) {
            try {
                process.waitFor(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (process.isAlive()) {
            throw new IllegalStateException(id + " (pid " + pid() + ") survived SIGKILL for " + EXIT_DEADLINE);
        }
        RUNNING.remove(this);
    }

    List<String> logLines() {
        try {
            return lines(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The size of the node's log now: where {@link #loggedSince} starts looking. */
    long logSize() {
        try {
            return Files.size(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * The first match of {@code pattern} in the whole lines the node logged after {@code mark[0]} (a size of its
     * log); moves the mark past the whole lines read, so that each poll reads only what is new.
     */
    Optional<Matcher> loggedSince(long[] mark, Pattern pattern) {
        try (FileChannel channel = FileChannel.open(log, StandardOpenOption.READ)) {
            long size = channel.size();
            if (size <= mark[0]) {
                return Optional.empty();
            }
            ByteBuffer buffer = ByteBuffer.allocate(Math.toIntExact(size - mark[0]));
            while (buffer.hasRemaining() && channel.read(buffer, mark[0] + buffer.position()) >= 0) {
                // reads until the buffer is full
            }
            int wholeLines = buffer.position();
            while (wholeLines > 0 && buffer.get(wholeLines - 1) != '\n') {
                wholeLines--;
            }
            mark[0] += wholeLines;
            Matcher matcher = pattern.matcher(new String(buffer.array(), 0, wholeLines, StandardCharsets.UTF_8));
            return matcher.find() ? Optional.of(matcher) : Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of a node's log, for failure messages. */
    static String lastLines(Path log, int count) {
        try {
            List<String> lines = lines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - count), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    private static List<String> lines(Path log) throws IOException {
        return new String(Files.readAllBytes(log), StandardCharsets.UTF_8).lines().toList();
    }

    @Override
    public String toString() {
        return id + " (pid " + pid() + ")";
    }
}
