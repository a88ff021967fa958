package dev.outbox.benchmark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The nodes of one measurement, {@code node-1} … {@code node-N}: started together with their start gate closed,
 * awaited until the partitions are balanced among them, let go at one instant, and stopped together. A group started
 * holdable can close the gate again ({@link #hold()}) and let go once more ({@link #release()}).
 */
final class NodeGroup implements AutoCloseable {

    private static final Duration BALANCE_DEADLINE = Duration.ofSeconds(180);
    private static final Duration HOLD_DEADLINE = Duration.ofSeconds(60);

    private final String phase;
    private final List<NodeProcess> nodes = new ArrayList<>();
    private final Path goFile;
    private final @Nullable Path holdFile;
    private final JdbcTemplate jdbc;
    private boolean stopped;

    private NodeGroup(String phase, Path goFile, @Nullable Path holdFile, JdbcTemplate jdbc) {
        this.phase = phase;
        this.goFile = goFile;
        this.holdFile = holdFile;
        this.jdbc = jdbc;
    }

    /** Starts {@code count} node JVMs for {@code phase}; their logs and reports go to the options' log directory. */
    static NodeGroup start(String phase, int count, BenchmarkOptions options, BenchDatabase database) {
        return start(phase, count, options, database, false);
    }

    /** As {@link #start(String, int, BenchmarkOptions, BenchDatabase)}; {@code holdable}: they watch a hold file. */
    static NodeGroup start(String phase, int count, BenchmarkOptions options, BenchDatabase database,
            boolean holdable) {
        Path goFile = options.logDir().resolve(phase + ".go");
        @Nullable Path holdFile = holdable ? options.logDir().resolve(phase + ".hold") : null;
        try {
            Files.createDirectories(options.logDir());
            Files.deleteIfExists(goFile);
            if (holdFile != null) {
                Files.deleteIfExists(holdFile);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        NodeGroup group = new NodeGroup(phase, goFile, holdFile, database.jdbc());
        try {
            for (int n = 1; n <= count; n++) {
                String id = "node-" + n;
                Path report = options.logDir().resolve(phase + "-" + id + ".report.json");
                NodeProcess node = NodeProcess.start(id, options.logDir().resolve(phase + "-" + id + ".log"), report,
                        options.nodeJvmOptions(), nodeProperties(id, goFile, holdFile, report, options, database));
                group.nodes.add(node);
                System.out.println("  started " + node + ", log " + node.log());
            }
            return group;
        } catch (RuntimeException e) {
            group.close();
            throw e;
        }
    }

    /**
     * A node's settings: the library's defaults, the datasource, the instance id, and the benchmark's own
     * {@code bench.*} properties; then the user's {@code --node-property} values.
     */
    static List<String> nodeProperties(String instanceId, Path goFile, @Nullable Path holdFile, Path reportFile,
            BenchmarkOptions options, BenchDatabase database) {
        String url = database.url() + (database.url().contains("?") ? "&" : "?") + "ApplicationName=" + instanceId;
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + url,
                "spring.datasource.username=" + database.user(),
                "spring.datasource.password=" + database.password(),
                "spring.jpa.hibernate.ddl-auto=none",
                "outbox.instance.id=" + instanceId,
                "bench.go-file=" + goFile,
                "bench.report-file=" + reportFile));
        if (holdFile != null) {
            properties.add("bench.hold-file=" + holdFile);
        }
        properties.addAll(options.nodeProperties());
        return properties;
    }

    List<NodeProcess> nodes() {
        return nodes;
    }

    /** Waits until every node is registered and the 256 partitions are shared evenly among exactly these nodes. */
    void awaitBalanced() throws InterruptedException {
        long deadline = System.nanoTime() + BALANCE_DEADLINE.toNanos();
        Map<String, Long> owners = Map.of();
        while (System.nanoTime() < deadline) {
            checkAlive();
            owners = owners();
            if (isBalanced(owners)) {
                return;
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(phase + ": partitions not balanced among " + ids() + " within "
                + BALANCE_DEADLINE.toSeconds() + " s; owners: " + owners);
    }

    private Map<String, Long> owners() {
        Map<String, Long> owners = new LinkedHashMap<>();
        jdbc.query("SELECT COALESCE(owner_instance_id, '(none)') AS owner, COUNT(*) AS partitions"
                + " FROM outbox_partition GROUP BY owner_instance_id ORDER BY 1",
                rs -> {
                    owners.put(rs.getString("owner"), rs.getLong("partitions"));
                });
        return owners;
    }

    private boolean isBalanced(Map<String, Long> owners) {
        if (!owners.keySet().equals(new java.util.HashSet<>(ids()))) {
            return false;
        }
        long total = owners.values().stream().mapToLong(Long::longValue).sum();
        long fair = total / nodes.size();
        return owners.values().stream().allMatch(count -> count == fair || count == fair + 1);
    }

    /** Lets every node start processing; returns the {@link BenchClock} time of the go signal. */
    long open() {
        try {
            Files.writeString(goFile, "go");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return BenchClock.nowMicros();
    }

    /**
     * Closes the gate again and waits until every node reports it held (no fetch in flight) and every handler call it
     * made written to {@code bench_handled}; returns the nodes' reports of that moment.
     */
    List<NodeReport> hold() throws InterruptedException {
        Path file = requireHoldable();
        try {
            Files.writeString(file, "hold");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long deadline = System.nanoTime() + HOLD_DEADLINE.toNanos();
        List<@Nullable NodeReport> reports = reports();
        while (System.nanoTime() < deadline) {
            checkAlive();
            reports = reports();
            if (reports.stream().allMatch(NodeGroup::heldAndFlushed)) {
                return reports.stream().map(Objects::requireNonNull).toList();
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(phase + ": the nodes did not report their gate held and their handler calls"
                + " written within " + HOLD_DEADLINE.toSeconds() + " s; reports: " + reports);
    }

    private static boolean heldAndFlushed(@Nullable NodeReport report) {
        return report != null && report.gateHeldAtMicros() > 0 && report.rowsPending() == 0
                && report.rowsRecorded() == report.handlerCalls();
    }

    /** Lets the held nodes go at one instant; returns the {@link BenchClock} time of that. */
    long release() {
        try {
            Files.delete(requireHoldable());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return BenchClock.nowMicros();
    }

    private Path requireHoldable() {
        if (holdFile == null) {
            throw new IllegalStateException(phase + ": the nodes were not started holdable");
        }
        return holdFile;
    }

    void checkAlive() {
        nodes.forEach(NodeProcess::checkAlive);
    }

    /** The nodes' latest reports (null for one that has not reported yet). */
    List<@Nullable NodeReport> reports() {
        List<@Nullable NodeReport> reports = new ArrayList<>();
        for (NodeProcess node : nodes) {
            reports.add(node.report());
        }
        return reports;
    }

    /** Handler calls reported so far, over all nodes. */
    long handlerCalls() {
        long calls = 0;
        for (NodeReport report : reports()) {
            if (report != null) {
                calls += report.handlerCalls();
            }
        }
        return calls;
    }

    List<String> ids() {
        return nodes.stream().map(NodeProcess::instanceId).toList();
    }

    /** SIGTERM to every node, then waits for each (killing those that outstay the deadline). */
    void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        nodes.forEach(NodeProcess::terminate);
        nodes.forEach(NodeProcess::awaitStopped);
    }

    /** What happened to each node at the end: exit code, killed or not, its final report. */
    List<Map<String, Object>> describe() {
        List<Map<String, Object>> described = new ArrayList<>();
        for (NodeProcess node : nodes) {
            Map<String, Object> entry = new LinkedHashMap<>();
            entry.put("instanceId", node.instanceId());
            entry.put("pid", node.pid());
            entry.put("log", node.log().toString());
            entry.put("exitCode", node.exitCode());
            entry.put("killed", node.wasKilled());
            NodeReport report = node.report();
            entry.put("report", report);
            described.add(entry);
        }
        return described;
    }

    @Override
    public void close() {
        stop();
    }
}
