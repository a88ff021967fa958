package dev.outbox.benchmark;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.postgresql.PGConnection;

/**
 * The latency benchmark's reference ({@code --role=listen-reference}): the least a relay does to hand a committed
 * record on, in plain JDBC and in a JVM of its own, as a node is. One connection LISTENs on the outbox's channel (the
 * one the library's writes notify); on each notification, and every {@link #POLL_MILLIS} without one, one transaction
 * claims the NEW records in sequence order ({@code SELECT … FOR UPDATE SKIP LOCKED LIMIT 100}), notes the
 * {@link BenchClock} time of each as its handler call, marks them COMPLETED and commits, until a claim finds fewer than
 * its limit. The notes go to {@code bench_handled} every 100 ms on a connection of their own, as the node's handler's
 * do. No partitions, fences, lanes, retries or handler threads: what the machine allows, for the library's latency to
 * be read against. Ready (the {@code .ready} file, as a node's) once the LISTEN is in place and five claims have run,
 * so that the claim is prepared on the server, as the node's warm-up does.
 */
final class ListenReference {

    static final String ROLE = "--role=listen-reference";
    private static final int CLAIM_LIMIT = 100;
    private static final int POLL_MILLIS = 500;
    private static final int WARM_UP_CLAIMS = 5;
    private static final String CLAIM = "SELECT id, aggregate_id, sequence_no FROM outbox_record WHERE status = 'NEW'"
            + " ORDER BY sequence_no LIMIT " + CLAIM_LIMIT + " FOR UPDATE SKIP LOCKED";
    private static final String COMPLETE = "UPDATE outbox_record SET status = 'COMPLETED', completed_at = now()"
            + " WHERE id = ANY(?)";

    private record Note(String recordId, String aggregateId, long sequence, long callNo, long handledAt) {
    }

    private final String url;
    private final String user;
    private final String password;
    private final List<Note> notes = new ArrayList<>();
    private long calls;
    private volatile boolean stopping;

    private ListenReference(String url, String user, String password) {
        this.url = url;
        this.user = user;
        this.password = password;
    }

    /** Starts the reference the way {@link NodeProcess} starts a node, with this role. */
    static NodeProcess start(BenchDatabase database, Path logDir, String phase, List<String> jvmOptions) {
        String id = "listen-reference";
        Path report = logDir.resolve(phase + "-" + id + ".report.json");
        NodeProcess process = NodeProcess.start(id, logDir.resolve(phase + "-" + id + ".log"), report,
                jvmOptions, ROLE, List.of("url=" + database.url(),
                        "user=" + database.user(), "password=" + database.password(), "report-file=" + report));
        System.out.println("  started " + process + ", log " + process.log());
        return process;
    }

    /** The role's main: runs until SIGTERM, or until the process that started it is gone (then it halts). */
    static void run(String[] args) throws Exception {
        Map<String, String> values = new HashMap<>();
        for (String arg : args) {
            if (arg.startsWith("--") && arg.contains("=") && !arg.equals(ROLE)) {
                values.put(arg.substring(2, arg.indexOf('=')), arg.substring(arg.indexOf('=') + 1));
            }
        }
        ListenReference reference = new ListenReference(values.get("url"), values.getOrDefault("user", "postgres"),
                values.getOrDefault("password", ""));
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            reference.stopping = true;
            try {
                stopped.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "reference-stop"));
        ProcessHandle parent = ProcessHandle.current().parent().orElse(null);
        if (parent != null) {
            Thread watchdog = new Thread(() -> {
                parent.onExit().join();
                Runtime.getRuntime().halt(3);
            }, "reference-parent-watchdog");
            watchdog.setDaemon(true);
            watchdog.start();
        }
        try {
            reference.relay(Path.of(values.get("report-file") + ".ready"));
        } finally {
            stopped.countDown();
        }
    }

    private void relay(Path readyFile) throws SQLException, InterruptedException {
        try (Connection listen = DriverManager.getConnection(url, user, password);
                Connection work = DriverManager.getConnection(url, user, password);
                Connection recording = DriverManager.getConnection(url, user, password)) {
            try (Statement statement = listen.createStatement()) {
                statement.execute("LISTEN outbox_record");
            }
            work.setAutoCommit(false);
            recording.setAutoCommit(false);
            Thread recorder = new Thread(() -> record(recording), "reference-recorder");
            recorder.start();
            for (int claim = 0; claim < WARM_UP_CLAIMS; claim++) {
                claim(work);
            }
            BenchClock.writeNow(readyFile);
            PGConnection notifications = listen.unwrap(PGConnection.class);
            while (!stopping) {
                while (claim(work) == CLAIM_LIMIT) {
                    // more may be waiting
                }
                notifications.getNotifications(POLL_MILLIS);
            }
            recorder.join(10_000);
            writeNotes(recording);
        }
    }

    /** One claim transaction; returns how many records it took. */
    private int claim(Connection work) throws SQLException {
        List<String> ids = new ArrayList<>();
        List<Note> claimed = new ArrayList<>();
        try (PreparedStatement select = work.prepareStatement(CLAIM); ResultSet rows = select.executeQuery()) {
            while (rows.next()) {
                String id = rows.getString(1);
                ids.add(id);
                claimed.add(new Note(id, rows.getString(2), rows.getLong(3), ++calls, BenchClock.nowMicros()));
            }
        }
        if (!ids.isEmpty()) {
            try (PreparedStatement complete = work.prepareStatement(COMPLETE)) {
                complete.setArray(1, work.createArrayOf("varchar", ids.toArray()));
                complete.executeUpdate();
            }
        }
        work.commit();
        synchronized (notes) {
            notes.addAll(claimed);
        }
        return ids.size();
    }

    private void record(Connection recording) {
        while (!stopping) {
            try {
                TimeUnit.MILLISECONDS.sleep(100);
                writeNotes(recording);
            } catch (InterruptedException e) {
                return;
            } catch (SQLException e) {
                throw new IllegalStateException("could not write bench_handled", e);
            }
        }
    }

    private void writeNotes(Connection recording) throws SQLException {
        List<Note> batch;
        synchronized (notes) {
            batch = List.copyOf(notes);
            notes.clear();
        }
        if (batch.isEmpty()) {
            return;
        }
        try (PreparedStatement insert = recording.prepareStatement(BenchSchema.INSERT_HANDLED)) {
            for (Note note : batch) {
                insert.setString(1, note.recordId());
                insert.setString(2, note.aggregateId());
                insert.setLong(3, note.sequence());
                insert.setString(4, "listen-reference");
                insert.setLong(5, note.callNo());
                insert.setLong(6, note.handledAt());
                insert.addBatch();
            }
            insert.executeBatch();
            recording.commit();
        }
    }
}
