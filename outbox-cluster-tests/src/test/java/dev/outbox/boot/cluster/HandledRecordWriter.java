package dev.outbox.boot.cluster;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordProcessor;
import dev.outbox.handler.RecordMetadata;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import java.time.Duration;
import java.time.Instant;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The handler of every cluster node: one auto-committed row in {@code handled_record} per call, so the tests can see
 * each delivery (duplicates included), which node made it and under which partition epoch. The record processor of
 * every node, and the body of the typed handlers of {@code cluster.handlers}.
 */
final class HandledRecordWriter implements OutboxRecordProcessor {

    private static final String INSERT = "INSERT INTO handled_record"
            + " (record_id, aggregate_id, sequence_no, instance_id, epoch, partition_no, invoked_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    private final JdbcTemplate jdbc;
    private final DatabaseDialect dialect;
    private final String instanceId;
    private final Duration pause;

    HandledRecordWriter(JdbcTemplate jdbc, DatabaseDialect dialect, String instanceId, Duration pause) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.instanceId = instanceId;
        this.pause = pause;
    }

    @Override
    public void process(OutboxRecord record) throws InterruptedException {
        handled(record.getId(), record.getAggregateId(), record.getSequence(), record.getEpoch(),
                record.getPartition());
    }

    /** The same row for a call of a typed handler. */
    void handled(RecordMetadata record) throws InterruptedException {
        handled(record.getId(), record.getAggregateId(), record.getSequence(), record.getEpoch(),
                record.getPartition());
    }

    private void handled(String id, String aggregateId, @Nullable Long sequence, long epoch, int partition)
            throws InterruptedException {
        // Taken first: a node frozen inside this call still shows when the call began.
        Object invokedAt = dialect.timestampValue(Instant.now());
        if (!pause.isZero()) {
            Thread.sleep(pause.toMillis());
        }
        jdbc.update(INSERT, id, aggregateId, sequence, instanceId, epoch, partition, invokedAt);
    }
}
