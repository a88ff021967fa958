package dev.outbox.benchmark;

import dev.outbox.OutboxRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.List;

/**
 * The plain-JDBC reference of the write path: the same rows as the library writes, inserted {@code perTransaction} at
 * a time as one JDBC batch, each batch committed. What the database can take, with no library in between.
 */
final class ReferenceInsert {

    private ReferenceInsert() {
    }

    /** Inserts {@code rows} into {@code table} on {@code connection}; returns the nanoseconds it took. */
    static long insert(Connection connection, String table, List<OutboxRecord> rows, int perTransaction)
            throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        long start = System.nanoTime();
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + table
                + " (id, status, aggregate_id, event_type, payload, partition_no, created_at, retry_count,"
                + " next_retry_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)")) {
            for (int from = 0; from < rows.size(); from += perTransaction) {
                for (OutboxRecord row : rows.subList(from, Math.min(rows.size(), from + perTransaction))) {
                    insert.setString(1, row.getId());
                    insert.setString(2, row.getStatus().name());
                    insert.setString(3, row.getAggregateId());
                    insert.setString(4, row.getEventType());
                    insert.setString(5, row.getPayload());
                    insert.setInt(6, row.getPartition());
                    insert.setObject(7, OffsetDateTime.ofInstant(row.getCreatedAt(), ZoneOffset.UTC));
                    insert.setInt(8, row.getRetryCount());
                    insert.setObject(9, OffsetDateTime.ofInstant(row.getNextRetryAt(), ZoneOffset.UTC));
                    insert.addBatch();
                }
                insert.executeBatch();
                connection.commit();
            }
        } finally {
            connection.setAutoCommit(autoCommit);
        }
        return System.nanoTime() - start;
    }
}
