package dev.outbox.benchmark;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * A connection of its own that holds a REPEATABLE READ snapshot open, as a long report or a forgotten transaction
 * would: it reads a row (the first statement takes the snapshot, and the backend's xmin holds back what vacuum, page
 * pruning and index clean-up may remove) and then does nothing until {@code seconds} have passed or it is closed,
 * whichever comes first. It reads {@code outbox_partition}, not the outbox table, so that it blocks no TRUNCATE.
 */
final class SnapshotHolder implements AutoCloseable {

    private final Connection connection;
    private final ScheduledExecutorService timer;
    private final long openedAtNanos;
    private final @Nullable String backendXmin;
    private volatile long releasedAtNanos;

    private SnapshotHolder(Connection connection, @Nullable String backendXmin, long seconds) {
        this.connection = connection;
        this.backendXmin = backendXmin;
        this.openedAtNanos = System.nanoTime();
        this.timer = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "bench-snapshot-release");
            thread.setDaemon(true);
            return thread;
        });
        timer.schedule(this::release, seconds, TimeUnit.SECONDS);
    }

    static SnapshotHolder open(BenchDatabase database, long seconds) {
        try {
            Connection connection = BenchDatabase.connect(database.url() + (database.url().contains("?") ? "&" : "?")
                    + "ApplicationName=bench-snapshot", database.user(), database.password());
            connection.setAutoCommit(false);
            connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
            String xmin;
            try (Statement statement = connection.createStatement()) {
                try (var rs = statement.executeQuery("SELECT COUNT(*) FROM outbox_partition")) {
                    rs.next();
                }
                try (var rs = statement.executeQuery("SELECT backend_xmin::text FROM pg_stat_activity"
                        + " WHERE pid = pg_backend_pid()")) {
                    xmin = rs.next() ? rs.getString(1) : null;
                }
            }
            if (xmin == null) {
                connection.close();
                throw new IllegalStateException("the snapshot connection has no backend_xmin: no snapshot is held");
            }
            return new SnapshotHolder(connection, xmin, seconds);
        } catch (SQLException e) {
            throw new IllegalStateException("could not open the snapshot: " + e.getMessage(), e);
        }
    }

    /** Ends the transaction (once); the horizon moves on. */
    synchronized void release() {
        if (releasedAtNanos != 0) {
            return;
        }
        releasedAtNanos = System.nanoTime();
        try {
            connection.rollback();
            connection.close();
        } catch (SQLException e) {
            // the snapshot is gone with the connection either way
        }
    }

    boolean isHeld() {
        return releasedAtNanos == 0;
    }

    Map<String, Object> describe() {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("isolation", "REPEATABLE READ, after SELECT COUNT(*) FROM outbox_partition");
        described.put("backendXmin", backendXmin);
        long end = releasedAtNanos == 0 ? System.nanoTime() : releasedAtNanos;
        described.put("heldSeconds", Stats.seconds(end - openedAtNanos));
        return described;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        release();
    }
}
