package dev.outbox.benchmark;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where the CPU went during a measurement: the whole machine's busy share ({@code /proc/stat}, Linux only), and the CPU
 * time of each node JVM (all its threads, the JIT compiler's included) and of the driver. What the machine spent beyond
 * those is mostly PostgreSQL. Of each node's time, the share of its JIT compiler threads is given apart where
 * {@code /proc/<pid>/task} can be read.
 */
final class CpuUsage {

    /**
     * One reading. {@code machine} is null where {@code /proc/stat} cannot be read; {@code compilerThreads}: per node,
     * the on-CPU nanoseconds of each live compiler thread by thread id (none where {@code /proc} cannot be read).
     */
    record Snapshot(long nanos, long @Nullable [] machine, Map<String, Duration> nodes,
            Map<String, Map<String, Long>> compilerThreads, Duration driver) {
    }

    /** The names the JVM gives its JIT compiler threads, as Linux keeps them (15 characters). */
    private static final List<String> COMPILER_THREADS = List.of("C1 CompilerThre", "C2 CompilerThre");

    private CpuUsage() {
    }

    static Snapshot take(List<NodeProcess> nodes) {
        Map<String, Duration> nodeTimes = new LinkedHashMap<>();
        Map<String, Map<String, Long>> compilers = new LinkedHashMap<>();
        for (NodeProcess node : nodes) {
            nodeTimes.put(node.instanceId(), node.cpuTime());
            Map<String, Long> threads = compilerThreads(node.pid());
            if (!threads.isEmpty()) {
                compilers.put(node.instanceId(), threads);
            }
        }
        Duration driver = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        return new Snapshot(System.nanoTime(), machineJiffies(), nodeTimes, compilers, driver);
    }

    static Map<String, Object> between(Snapshot from, Snapshot to) {
        double wall = (to.nanos() - from.nanos()) / 1e9;
        Map<String, Object> usage = new LinkedHashMap<>();
        usage.put("wallSeconds", Stats.round(wall, 3));
        usage.put("cores", Runtime.getRuntime().availableProcessors());
        long[] a = from.machine();
        long[] b = to.machine();
        if (a != null && b != null) {
            long total = b[0] - a[0];
            long idle = b[1] - a[1];
            usage.put("machineBusyPercent", total <= 0 ? null : Stats.round(100.0 * (total - idle) / total, 1));
        }
        Map<String, Object> nodes = new LinkedHashMap<>();
        to.nodes().forEach((id, time) -> nodes.put(id,
                Stats.round((time.toNanos() - from.nodes().getOrDefault(id, Duration.ZERO).toNanos()) / 1e9, 2)));
        usage.put("nodeCpuSeconds", nodes);
        if (!to.compilerThreads().isEmpty()) {
            Map<String, Object> compilers = new LinkedHashMap<>();
            to.compilerThreads().forEach((id, threads) -> {
                Map<String, Long> before = from.compilerThreads().getOrDefault(id, Map.of());
                long nanos = threads.entrySet().stream()
                        .mapToLong(thread -> thread.getValue() - before.getOrDefault(thread.getKey(), 0L)).sum();
                compilers.put(id, Stats.round(nanos / 1e9, 2));
            });
            usage.put("nodeCompilerCpuSeconds", compilers);
            usage.put("nodeCompilerCpuNote", "part of nodeCpuSeconds: the JIT compiler threads alive at the end"
                    + " (/proc/<pid>/task/*/schedstat); one that ended in between is missing");
        }
        usage.put("driverCpuSeconds", Stats.round((to.driver().toNanos() - from.driver().toNanos()) / 1e9, 2));
        return usage;
    }

    /** On-CPU nanoseconds of each live JIT compiler thread of process {@code pid}, by thread id; empty if unknown. */
    private static Map<String, Long> compilerThreads(long pid) {
        Map<String, Long> threads = new HashMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Path.of("/proc", String.valueOf(pid), "task"))) {
            for (Path task : tasks) {
                try {
                    if (COMPILER_THREADS.contains(Files.readString(task.resolve("comm")).trim())) {
                        String schedstat = Files.readString(task.resolve("schedstat")).trim();
                        threads.put(task.getFileName().toString(), Long.parseLong(schedstat.split("\\s+")[0]));
                    }
                } catch (IOException | RuntimeException e) {
                    // the thread ended meanwhile
                }
            }
        } catch (IOException | RuntimeException e) {
            // no /proc here: no figure
        }
        return threads;
    }

    /** Total and idle (idle + iowait) jiffies of all CPUs, or null. */
    private static long @Nullable [] machineJiffies() {
        try {
            String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
            String[] fields = line.trim().split("\\s+");
            if (!fields[0].equals("cpu")) {
                return null;
            }
            long total = 0;
            // user nice system idle iowait irq softirq steal (guest time is already in user)
            for (int i = 1; i <= Math.min(8, fields.length - 1); i++) {
                total += Long.parseLong(fields[i]);
            }
            long idle = Long.parseLong(fields[4]) + (fields.length > 5 ? Long.parseLong(fields[5]) : 0);
            return new long[] {total, idle};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
