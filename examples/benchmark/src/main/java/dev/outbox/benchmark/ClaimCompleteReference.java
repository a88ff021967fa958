package dev.outbox.benchmark;

import dev.outbox.OutboxRecord;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The plain-JDBC reference of a drain: what one processing loop does with no library in between. On a copy of the
 * outbox table ({@code LIKE outbox_record INCLUDING ALL}, so the same columns and indexes), one thread claims the next
 * {@value #BATCH} NEW rows in sequence order ({@code FOR UPDATE SKIP LOCKED}) and sets them COMPLETED by id, one
 * transaction per batch. No per-aggregate order, no fencing, no handler: the floor under what a drain can cost.
 */
final class ClaimCompleteReference {

    /** The library's default {@code outbox.batch-size}. */
    static final int BATCH = 100;

    private ClaimCompleteReference() {
    }

    /**
     * Empties {@code table}, inserts {@code rows}, prepares it as a drain's table is prepared, and drains it; returns
     * the figures. {@code prepare} runs between the insert and the drain (vacuum, analyze, checkpoint).
     */
    static Map<String, Object> run(Connection connection, String table, List<OutboxRecord> rows, Runnable prepare)
            throws SQLException {
        try (PreparedStatement truncate = connection.prepareStatement("TRUNCATE " + table)) {
            truncate.execute();
        }
        ReferenceInsert.insert(connection, table, rows, BATCH);
        prepare.run();
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        long claimNanos = 0;
        long completeNanos = 0;
        long commitNanos = 0;
        int batches = 0;
        long completed = 0;
        long start = System.nanoTime();
        try (PreparedStatement claim = connection.prepareStatement("SELECT id FROM " + table
                + " WHERE status = 'NEW' ORDER BY sequence_no LIMIT " + BATCH + " FOR UPDATE SKIP LOCKED");
                PreparedStatement complete = connection.prepareStatement("UPDATE " + table
                        + " SET status = 'COMPLETED', completed_at = ? WHERE id = ANY(?)")) {
            while (true) {
                long t0 = System.nanoTime();
                List<String> ids = new ArrayList<>(BATCH);
                try (ResultSet result = claim.executeQuery()) {
                    while (result.next()) {
                        ids.add(result.getString(1));
                    }
                }
                long t1 = System.nanoTime();
                claimNanos += t1 - t0;
                if (ids.isEmpty()) {
                    connection.commit();
                    break;
                }
                Array array = connection.createArrayOf("varchar", ids.toArray());
                complete.setObject(1, OffsetDateTime.now(ZoneOffset.UTC));
                complete.setArray(2, array);
                completed += complete.executeUpdate();
                array.free();
                long t2 = System.nanoTime();
                completeNanos += t2 - t1;
                connection.commit();
                commitNanos += System.nanoTime() - t2;
                batches++;
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        long nanos = System.nanoTime() - start;
        if (completed != rows.size()) {
            throw new IllegalStateException("the claim + complete reference completed " + completed + " rows, not "
                    + rows.size());
        }
        double seconds = Stats.seconds(nanos);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("loop", "SELECT id … WHERE status = 'NEW' ORDER BY sequence_no LIMIT " + BATCH
                + " FOR UPDATE SKIP LOCKED; UPDATE … SET status = 'COMPLETED', completed_at = ? WHERE id = ANY(?);"
                + " COMMIT");
        result.put("batches", batches);
        result.put("seconds", seconds);
        result.put("recordsPerSecond", Stats.rate(completed, seconds));
        result.put("claimMillisPerBatch", perBatch(claimNanos, batches));
        result.put("completeMillisPerBatch", perBatch(completeNanos, batches));
        result.put("commitMillisPerBatch", perBatch(commitNanos, batches));
        return result;
    }

    private static double perBatch(long nanos, int batches) {
        return batches == 0 ? 0 : Stats.round(nanos / 1e6 / batches, 3);
    }
}
