package dev.outbox.benchmark;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * CPU used during a measurement by processes that are not part of the benchmark: another build or test suite on the
 * same machine, or sessions of other databases on the same PostgreSQL server. Sampled once a second from the process
 * table. Not counted as foreign: the driver, its nodes, the server backends of the benchmark's database, and the
 * server's own background processes (which serve every database).
 */
final class ForeignLoad implements AutoCloseable {

    /** Above this share of the machine, and {@link #WARN_CPU_SECONDS}, the measurement is flagged. */
    static final double WARN_PERCENT = 5.0;
    static final double WARN_CPU_SECONDS = 1.0;

    private final String databaseName;
    private final Supplier<Set<Long>> ownPids;
    private final long startNanos = System.nanoTime();
    private final long startEpochMillis = System.currentTimeMillis();
    private final Map<Long, Long> lastCpuNanos = new HashMap<>();
    private final Map<String, Long> foreignNanosByCommand = new HashMap<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "bench-foreign-load");
        thread.setDaemon(true);
        return thread;
    });
    private long stopNanos;

    private ForeignLoad(String databaseName, Supplier<Set<Long>> ownPids) {
        this.databaseName = databaseName;
        this.ownPids = ownPids;
    }

    static ForeignLoad start(String databaseName, Supplier<Set<Long>> ownPids) {
        ForeignLoad load = new ForeignLoad(databaseName, ownPids);
        load.sample();
        load.timer.scheduleWithFixedDelay(load::sample, 1, 1, TimeUnit.SECONDS);
        return load;
    }

    private synchronized void sample() {
        Set<Long> own = ownPids.get();
        long selfPid = ProcessHandle.current().pid();
        ProcessHandle.allProcesses().forEach(process -> {
            long pid = process.pid();
            if (pid == selfPid || own.contains(pid)) {
                return;
            }
            ProcessHandle.Info info = process.info();
            String command = commandLine(pid).orElse(info.commandLine().orElse(""));
            if (command.isEmpty() || !isForeign(command)) {
                return; // kernel threads have none
            }
            long cpu = info.totalCpuDuration().map(Duration::toNanos).orElse(0L);
            Long previous = lastCpuNanos.put(pid, cpu);
            long delta;
            if (previous != null) {
                delta = cpu - previous;
            } else {
                // First seen: all of its CPU if it started after us, none of what it used before.
                boolean startedLater = info.startInstant().map(start -> start.toEpochMilli() >= startEpochMillis)
                        .orElse(false);
                delta = startedLater ? cpu : 0;
            }
            if (delta > 0) {
                foreignNanosByCommand.merge(label(command), delta, Long::sum);
            }
        });
    }

    /**
     * The process's command line as {@code ps} shows it, from {@code /proc} (Linux): PostgreSQL rewrites it to name the
     * database a backend serves, which {@link ProcessHandle.Info} does not show.
     */
    private static Optional<String> commandLine(long pid) {
        try {
            byte[] raw = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline"));
            return Optional.of(new String(raw, StandardCharsets.UTF_8).replace('\0', ' ').strip());
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private boolean isForeign(String command) {
        if (command.startsWith("postgres: ")) {
            // A client backend shows "user database host(port) state"; background processes serve everyone.
            boolean clientBackend = command.contains("(") && command.contains(")") || command.contains("[local]");
            return clientBackend && !command.contains(" " + databaseName + " ");
        }
        String executable = command.split(" ", 2)[0];
        // The server's main process: shared by every database, like its background processes.
        return !(executable.equals("postgres") || executable.endsWith("/postgres"));
    }

    private static String label(String command) {
        String text = command.replaceAll("\\s+", " ").strip();
        if (text.startsWith("postgres: ")) {
            // "postgres: 15/main: user database 127.0.0.1(5432) idle" -> the database
            String[] words = text.split(" ");
            return words.length > 3 ? "postgres backend of database " + words[3] : text;
        }
        return text.length() <= 100 ? text : text.substring(0, 100) + "…";
    }

    /** Stops sampling and sums up: foreign CPU seconds, their share of the machine, the biggest consumers. */
    synchronized Map<String, Object> summary() {
        if (stopNanos == 0) {
            sample();
            stopNanos = System.nanoTime();
            timer.shutdownNow();
        }
        double wall = (stopNanos - startNanos) / 1e9;
        long total = foreignNanosByCommand.values().stream().mapToLong(Long::longValue).sum();
        int cores = Runtime.getRuntime().availableProcessors();
        Map<String, Object> summary = new LinkedHashMap<>();
        summary.put("cpuSeconds", Stats.round(total / 1e9, 2));
        summary.put("percentOfMachine", wall <= 0 ? 0.0 : Stats.round(100.0 * total / 1e9 / (wall * cores), 1));
        List<Map<String, Object>> top = new ArrayList<>();
        foreignNanosByCommand.entrySet().stream()
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .limit(5)
                .forEach(entry -> {
                    Map<String, Object> process = new LinkedHashMap<>();
                    process.put("process", entry.getKey());
                    process.put("cpuSeconds", Stats.round(entry.getValue() / 1e9, 2));
                    top.add(process);
                });
        summary.put("top", top);
        return summary;
    }

    @Override
    public void close() {
        summary();
    }
}
