package dev.outbox.benchmark;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * Where the CPU went during a measurement: the whole machine's busy share ({@code /proc/stat}, Linux only), and the CPU
 * time of each node JVM and of the driver. What the machine spent beyond those is mostly PostgreSQL.
 */
final class CpuUsage {

    /** One reading. {@code machine} is null where {@code /proc/stat} cannot be read. */
    record Snapshot(long nanos, long @Nullable [] machine, Map<String, Duration> nodes, Duration driver) {
    }

    private CpuUsage() {
    }

    static Snapshot take(List<NodeProcess> nodes) {
        Map<String, Duration> nodeTimes = new LinkedHashMap<>();
        for (NodeProcess node : nodes) {
            nodeTimes.put(node.instanceId(), node.cpuTime());
        }
        Duration driver = ProcessHandle.current().info().totalCpuDuration().orElse(Duration.ZERO);
        return new Snapshot(System.nanoTime(), machineJiffies(), nodeTimes, driver);
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
        usage.put("driverCpuSeconds", Stats.round((to.driver().toNanos() - from.driver().toNanos()) / 1e9, 2));
        return usage;
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
