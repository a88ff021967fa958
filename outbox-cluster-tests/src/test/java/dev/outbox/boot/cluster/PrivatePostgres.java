package dev.outbox.boot.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * A PostgreSQL server of a test's own, for faults the shared server must not suffer: a cluster made by {@code initdb}
 * in a temporary folder, with trust authentication and small settings, listening on a free port of 127.0.0.1 only
 * (no Unix socket), run with {@code pg_ctl}. {@link #close()} stops it, killing its postmaster and the postmaster's
 * children by PID when {@code pg_ctl} cannot, and deletes the folder.
 *
 * <p>The binaries are those of {@code OUTBOX_TEST_POSTGRES_BIN}, else of the newest
 * {@code /usr/lib/postgresql/<version>/bin}. PostgreSQL refuses to run as root: under root its commands run as the
 * OS user {@code postgres} ({@code runuser}). Without them the test is skipped, or fails when {@code CI} or
 * {@code OUTBOX_TEST_REQUIRE_DB} is {@code true}.
 */
final class PrivatePostgres implements AutoCloseable {

    /** How {@link #stop} ends the server: {@code pg_ctl stop -m <mode>}. */
    enum StopMode {
        /** Sessions are ended (SQLSTATE 57P01), then a checkpoint: a clean restart. */
        FAST,
        /** Every process quits at once, no checkpoint: a crash, recovered from the WAL at the next start. */
        IMMEDIATE;

        /** As {@code pg_ctl -m} takes it. */
        String option() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private static final Duration COMMAND_DEADLINE = Duration.ofSeconds(60);
    private static final String OS_USER_UNDER_ROOT = "postgres";
    private static final Set<PrivatePostgres> RUNNING = ConcurrentHashMap.newKeySet();

    static {
        // Last resort when the test JVM is shut down in the middle of a test: pg_ctl's server outlives it otherwise.
        Runtime.getRuntime().addShutdownHook(new Thread(() -> RUNNING.forEach(PrivatePostgres::close),
                "private-postgres-reaper"));
    }

    private final Path binaries;
    private final Path folder;
    private final Path data;
    private final int port;
    private final boolean asRoot;

    private PrivatePostgres(Path binaries, Path folder, int port, boolean asRoot) {
        this.binaries = binaries;
        this.folder = folder;
        this.data = folder.resolve("data");
        this.port = port;
        this.asRoot = asRoot;
    }

    /** Makes a new cluster and starts it. */
    static PrivatePostgres create() throws IOException {
        Path binaries = binaries().orElseGet(() -> unavailable("no PostgreSQL binaries (initdb, pg_ctl): set "
                + "OUTBOX_TEST_POSTGRES_BIN or install them under /usr/lib/postgresql/<version>/bin"));
        boolean asRoot = "root".equals(System.getProperty("user.name"));
        Path folder = Files.createTempDirectory("outbox-private-postgres");
        PrivatePostgres server = new PrivatePostgres(binaries, folder, ClusterAssertions.freePort(), asRoot);
        RUNNING.add(server);
        try {
            if (asRoot) {
                try {
                    Files.setOwner(folder, folder.getFileSystem().getUserPrincipalLookupService()
                            .lookupPrincipalByName(OS_USER_UNDER_ROOT));
                } catch (IOException e) {
                    unavailable("PostgreSQL does not run as root, and there is no OS user " + OS_USER_UNDER_ROOT
                            + " to run it as (" + e + ")");
                }
            }
            server.pgCommand("initdb", "-D", server.data.toString(), "-U", "postgres", "-A", "trust", "-E", "UTF8",
                    "--locale=C", "--no-sync", "--no-instructions");
            Files.writeString(server.data.resolve("postgresql.conf"), String.join("\n",
                    "", "# " + PrivatePostgres.class.getName(),
                    "listen_addresses = '127.0.0.1'",
                    "port = " + server.port,
                    "unix_socket_directories = ''",
                    "max_connections = 50",
                    "shared_buffers = 16MB",
                    "max_wal_size = 256MB",
                    ""), StandardCharsets.UTF_8, StandardOpenOption.APPEND);
            server.start();
            return server;
        } catch (RuntimeException | Error | IOException e) {
            server.close();
            throw e;
        }
    }

    /** The JDBC URL of the {@code postgres} database, for {@code CREATE DATABASE}; user {@code postgres}. */
    String adminUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres";
    }

    /** Starts the stopped server and returns once it accepts connections (after crash recovery, if it needs any). */
    void start() {
        pgCommand("pg_ctl", "-D", data.toString(), "-l", folder.resolve("server.log").toString(), "-w", "-t",
                Long.toString(COMMAND_DEADLINE.toSeconds()), "start");
    }

    /** Stops the server and returns once every process of it is gone. */
    void stop(StopMode mode) {
        pgCommand("pg_ctl", "-D", data.toString(), "-m", mode.option(), "-w",
                "-t", Long.toString(COMMAND_DEADLINE.toSeconds()), "stop");
    }

    /** The postmaster's PID, from {@code postmaster.pid}; empty while the server is stopped. */
    Optional<Long> postmasterPid() {
        Path pidFile = data.resolve("postmaster.pid");
        try {
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            return lines.isEmpty() ? Optional.empty() : Optional.of(Long.parseLong(lines.get(0).strip()));
        } catch (NoSuchFileException stopped) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The last lines of the server's log, for failure messages. */
    String lastLogLines(int count) {
        return ClusterNode.lastLines(folder.resolve("server.log"), count);
    }

    /** Stops the server whatever its state (SIGKILL by PID as the last resort) and deletes its folder. */
    @Override
    public void close() {
        RUNNING.remove(this);
        Optional<Long> postmaster = Optional.empty();
        try {
            postmaster = postmasterPid();
            if (postmaster.isPresent()) {
                stop(StopMode.IMMEDIATE);
            }
        } catch (RuntimeException stillRunning) {
            // killed below
        }
        postmaster.flatMap(ProcessHandle::of).ifPresent(process -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            process.onExit().orTimeout(30, TimeUnit.SECONDS).join();
        });
        try (Stream<Path> paths = Files.walk(folder)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    @Override
    public String toString() {
        return "PostgreSQL on 127.0.0.1:" + port + " in " + folder;
    }

    /** Runs a PostgreSQL program, as {@code postgres} under root; fails with its output unless it exits with 0. */
    private void pgCommand(String program, String... arguments) {
        List<String> command = new ArrayList<>();
        if (asRoot) {
            command.addAll(List.of("runuser", "-u", OS_USER_UNDER_ROOT, "--"));
        }
        command.add(binaries.resolve(program).toString());
        command.addAll(List.of(arguments));
        Path output = folder.resolve("command.out");
        try {
            Process process = new ProcessBuilder(command).directory(folder.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile()).start();
            if (!process.waitFor(COMMAND_DEADLINE.toSeconds() + 10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " did not return");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(String.join(" ", command) + " exited with " + process.exitValue()
                        + ": " + Files.readString(output, StandardCharsets.UTF_8) + "\nserver log:\n"
                        + lastLogLines(20));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("Could not run " + String.join(" ", command), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while running " + program, e);
        }
    }

    private static Optional<Path> binaries() {
        String configured = System.getenv("OUTBOX_TEST_POSTGRES_BIN");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured.strip())).filter(PrivatePostgres::hasPrograms);
        }
        Path installed = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(installed)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(installed)) {
            return versions.map(version -> version.resolve("bin")).filter(PrivatePostgres::hasPrograms)
                    .max(Comparator.comparing(PrivatePostgres::majorVersion));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static boolean hasPrograms(Path directory) {
        return Stream.of("initdb", "pg_ctl", "postgres").allMatch(name -> Files.isExecutable(directory.resolve(name)));
    }

    private static int majorVersion(Path binaries) {
        String version = binaries.getParent().getFileName().toString();
        return version.matches("\\d+") ? Integer.parseInt(version) : 0;
    }

    /** Skips the test, or fails it where databases are required (CI). */
    private static <T> T unavailable(String why) {
        if ("true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_DB"))
                || "true".equalsIgnoreCase(System.getenv("CI"))) {
            throw new IllegalStateException(why);
        }
        return Assumptions.abort(why);
    }
}
