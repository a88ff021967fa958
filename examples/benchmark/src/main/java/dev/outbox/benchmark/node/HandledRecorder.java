package dev.outbox.benchmark.node;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.benchmark.BenchClock;
import dev.outbox.benchmark.BenchSchema;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.DisposableBean;

/**
 * The node's handler: does no work of its own, it only notes each call (record id, aggregate, sequence, this
 * instance, a call number and the {@link BenchClock} time at entry) in memory. A writer thread copies the notes into
 * {@code bench_handled} every 100 ms with one COPY in one transaction, over a connection of its own (not from the
 * application's pool, and not counted as the node's queries). The driver checks duplicates and per-aggregate order
 * across nodes from that table. On shutdown, after processing has stopped, the rest is flushed.
 */
final class HandledRecorder implements OutboxRecordProcessor, DisposableBean {

    private static final Logger log = LoggerFactory.getLogger(HandledRecorder.class);
    private static final long FLUSH_INTERVAL_MILLIS = 100;
    private static final int MAX_ROWS_PER_BATCH = 5_000;

    private record Row(String recordId, String aggregateId, long sequence, long callNo, long handledAt) {
    }

    private final String instanceId;
    private final String url;
    private final String user;
    private final String password;
    private final NodeState state;
    private final NodeReporter reporter;
    private final ConcurrentLinkedQueue<Row> queue = new ConcurrentLinkedQueue<>();
    private final List<Row> unsent = new ArrayList<>();
    private final Thread writer;
    private volatile boolean stopping;
    private @Nullable Connection connection;

    HandledRecorder(String instanceId, String url, String user, String password, NodeState state,
            NodeReporter reporter) {
        this.instanceId = instanceId;
        this.url = url;
        this.user = user;
        this.password = password;
        this.state = state;
        this.reporter = reporter;
        this.writer = new Thread(this::writeLoop, "bench-handled-writer");
        writer.setDaemon(true);
        writer.start();
    }

    @Override
    public void process(OutboxRecord record) {
        long handledAt = BenchClock.nowMicros();
        long callNo = state.handlerCalls.incrementAndGet();
        Long sequence = record.getSequence();
        queue.add(new Row(record.getId(), record.getAggregateId(), sequence == null ? -1 : sequence, callNo,
                handledAt));
        state.rowsPending.incrementAndGet();
    }

    private void writeLoop() {
        while (!stopping) {
            try {
                TimeUnit.MILLISECONDS.sleep(FLUSH_INTERVAL_MILLIS);
            } catch (InterruptedException e) {
                break;
            }
            flush();
        }
    }

    /** Writes everything queued; on failure keeps the rows for the next attempt. */
    private synchronized void flush() {
        while (true) {
            while (unsent.size() < MAX_ROWS_PER_BATCH) {
                Row row = queue.poll();
                if (row == null) {
                    break;
                }
                unsent.add(row);
            }
            if (unsent.isEmpty()) {
                return;
            }
            try {
                copy(unsent);
                state.rowsRecorded.addAndGet(unsent.size());
                state.rowsPending.addAndGet(-unsent.size());
                unsent.clear();
            } catch (SQLException e) {
                state.recordingFailures.incrementAndGet();
                log.warn("Could not write {} rows to bench_handled; retrying", unsent.size(), e);
                closeConnection();
                return;
            }
        }
    }

    /**
     * One COPY of the rows, in one transaction: the notes are the benchmark's, not the library's, and a COPY costs the
     * database (which shares the cores with the node) a fraction of a batch of single-row INSERTs.
     */
    private void copy(List<Row> rows) throws SQLException {
        Connection c = connection;
        if (c == null) {
            c = DriverManager.getConnection(url, user, password);
            c.setAutoCommit(false);
            connection = c;
        }
        StringBuilder text = new StringBuilder(rows.size() * 96);
        for (Row row : rows) {
            copyText(text, row.recordId()).append('\t');
            copyText(text, row.aggregateId()).append('\t').append(row.sequence()).append('\t');
            copyText(text, instanceId).append('\t').append(row.callNo()).append('\t').append(row.handledAt())
                    .append('\n');
        }
        try {
            long copied = c.unwrap(PGConnection.class).getCopyAPI().copyIn(BenchSchema.COPY_HANDLED,
                    new StringReader(text.toString()));
            if (copied != rows.size()) {
                throw new SQLException("COPY bench_handled wrote " + copied + " rows of " + rows.size());
            }
            c.commit();
        } catch (SQLException | IOException e) {
            try {
                c.rollback();
            } catch (SQLException rollbackFailure) {
                e.addSuppressed(rollbackFailure);
            }
            throw e instanceof SQLException sql ? sql : new SQLException("COPY bench_handled failed", e);
        }
    }

    /** A value in COPY's text format: backslash, tab, newline and carriage return escaped. */
    private static StringBuilder copyText(StringBuilder text, String value) {
        for (int i = 0; i < value.length(); i++) {
            char ch = value.charAt(i);
            switch (ch) {
                case '\\' -> text.append("\\\\");
                case '\t' -> text.append("\\t");
                case '\n' -> text.append("\\n");
                case '\r' -> text.append("\\r");
                default -> text.append(ch);
            }
        }
        return text;
    }

    private void closeConnection() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException e) {
                log.debug("Closing the bench_handled connection failed", e);
            }
        }
    }

    /** Runs after the processing lifecycle has stopped: no handler call is in flight any more. */
    @Override
    public void destroy() throws InterruptedException {
        stopping = true;
        writer.interrupt();
        writer.join(10_000);
        for (int attempt = 0; attempt < 3 && (!queue.isEmpty() || !unsent.isEmpty()); attempt++) {
            flush();
        }
        closeConnection();
        reporter.writeFinal();
    }
}
