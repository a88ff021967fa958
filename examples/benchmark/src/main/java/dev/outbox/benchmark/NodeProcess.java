package dev.outbox.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarFile;
import org.jspecify.annotations.Nullable;
import tools.jackson.databind.json.JsonMapper;

/**
 * A processing node running as a JVM of its own, started directly (no shell), so that its PID is the JVM's: stopped
 * with SIGTERM (graceful: the node drains and releases its partitions) and, if it is still there after a deadline,
 * SIGKILL. Every node still running when the driver's JVM shuts down is killed by its shutdown hook; a node also halts
 * by itself when its driver is gone.
 */
final class NodeProcess {

    private static final Duration GRACEFUL_DEADLINE = Duration.ofSeconds(60);
    private static final Duration KILL_DEADLINE = Duration.ofSeconds(30);
    private static final Set<NodeProcess> RUNNING = ConcurrentHashMap.newKeySet();
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static @Nullable Path nodeJarCopy;
    private static boolean nodeJarResolved;

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(NodeProcess::killAll, "bench-node-reaper"));
    }

    private final String instanceId;
    private final Process process;
    private final Path log;
    private final Path reportFile;
    private @Nullable Integer exitCode;
    private boolean killed;

    private NodeProcess(String instanceId, Process process, Path log, Path reportFile) {
        this.instanceId = instanceId;
        this.process = process;
        this.log = log;
        this.reportFile = reportFile;
    }

    /**
     * Starts {@code java [jvmOptions] -jar outbox-benchmark.jar --role=node [properties]} when the driver runs from
     * the jar, or the same main class on the driver's class path otherwise (tests, IDE).
     */
    static NodeProcess start(String instanceId, Path log, Path reportFile, List<String> jvmOptions,
            List<String> properties) {
        return start(instanceId, log, reportFile, jvmOptions, "--role=node", properties);
    }

    /** The same with another role of the jar, e.g. {@link ListenReference#ROLE}. */
    static NodeProcess start(String instanceId, Path log, Path reportFile, List<String> jvmOptions, String role,
            List<String> properties) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        Optional<Path> jar = nodeJar();
        if (jar.isPresent()) {
            command.add("-jar");
            command.add(jar.get().toString());
        } else {
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(BenchmarkApplication.class.getName());
        }
        command.add(role);
        properties.forEach(property -> command.add("--" + property));
        try {
            Files.createDirectories(log.getParent());
            Files.deleteIfExists(reportFile);
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .start();
            NodeProcess node = new NodeProcess(instanceId, process, log, reportFile);
            RUNNING.add(node);
            return node;
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start node " + instanceId, e);
        }
    }

    /**
     * A private copy of the driver's jar for the nodes, made once: a rebuild of the module while the benchmark runs
     * then cannot hand later nodes another (or a half-written) jar. Deleted when the driver exits.
     */
    private static synchronized Optional<Path> nodeJar() {
        if (!nodeJarResolved) {
            Optional<Path> jar = bootJar();
            if (jar.isPresent()) {
                try {
                    Path copy = Files.createTempFile("outbox-benchmark-node-", ".jar");
                    copy.toFile().deleteOnExit();
                    nodeJarCopy = Files.copy(jar.get(), copy, StandardCopyOption.REPLACE_EXISTING);
                } catch (IOException e) {
                    throw new UncheckedIOException("Could not copy " + jar.get() + " for the nodes", e);
                }
            }
            nodeJarResolved = true;
        }
        return Optional.ofNullable(nodeJarCopy);
    }

    /** The repackaged jar the driver was started from ({@code java -jar}), if it was. */
    static Optional<Path> bootJar() {
        String classPath = System.getProperty("java.class.path", "");
        if (!classPath.endsWith(".jar") || classPath.contains(java.io.File.pathSeparator)) {
            return Optional.empty();
        }
        Path jar = Path.of(classPath).toAbsolutePath();
        try (JarFile file = new JarFile(jar.toFile())) {
            var manifest = file.getManifest();
            boolean boot = manifest != null && manifest.getMainAttributes().getValue("Start-Class") != null;
            return boot ? Optional.of(jar) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    String instanceId() {
        return instanceId;
    }

    long pid() {
        return process.pid();
    }

    Path log() {
        return log;
    }

    /** CPU time the node's JVM has used so far (zero where the OS does not tell). */
    Duration cpuTime() {
        return process.info().totalCpuDuration().orElse(Duration.ZERO);
    }

    boolean wasKilled() {
        return killed;
    }

    @Nullable Integer exitCode() {
        return exitCode;
    }

    /** Fails when the node ended on its own: waiting for it would only hide why. */
    void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("node " + instanceId + " (pid " + pid() + ") exited with code "
                    + process.exitValue() + "; see " + log);
        }
    }

    /** The node's latest report, or null before its first one. */
    @Nullable NodeReport report() {
        if (!Files.exists(reportFile)) {
            return null;
        }
        try {
            return JSON.readValue(Files.readString(reportFile), NodeReport.class);
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Sends SIGTERM without waiting. */
    void terminate() {
        process.destroy();
    }

    /**
     * Waits for the node to exit after {@link #terminate()}, up to the graceful deadline; kills it after that. Ends the
     * process in every case, also on an interrupted thread.
     */
    void awaitStopped() {
        boolean interrupted = false;
        try {
            if (!process.waitFor(GRACEFUL_DEADLINE.toMillis(), TimeUnit.MILLISECONDS)) {
                System.out.println("  node " + instanceId + " (pid " + pid() + ") did not stop within "
                        + GRACEFUL_DEADLINE.toSeconds() + " s of SIGTERM: killing it");
                kill();
            }
        } catch (InterruptedException e) {
            interrupted = true;
            kill();
        }
        exitCode = process.isAlive() ? null : process.exitValue();
        RUNNING.remove(this);
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** SIGKILL, then waits for the process to be gone. */
    void kill() {
        killed = true;
        process.destroyForcibly();
        long deadline = System.nanoTime() + KILL_DEADLINE.toNanos();
        boolean interrupted = false;
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
        RUNNING.remove(this);
    }

    /** PIDs of the nodes running now. */
    static Set<Long> runningPids() {
        Set<Long> pids = new java.util.HashSet<>();
        RUNNING.forEach(node -> pids.add(node.pid()));
        return pids;
    }

    /** SIGKILL to every node still running; for shutdown hooks, so it does not wait. */
    static void killAll() {
        for (NodeProcess node : List.copyOf(RUNNING)) {
            node.process.destroyForcibly();
        }
    }

    @Override
    public String toString() {
        return instanceId + " (pid " + pid() + ")";
    }
}
