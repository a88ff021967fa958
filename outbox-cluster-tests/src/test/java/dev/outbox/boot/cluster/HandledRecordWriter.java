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
 * every node, and the body of the typed handlers of {@code cluster.handlers}. With {@code cluster.failure-switch=true}
 * the record processor fails the records whose event type the test has put in {@code failing_event_type}, for as long
 * as it stays there.
 */
final class HandledRecordWriter implements OutboxRecordProcessor {

    private static final String INSERT = "INSERT INTO handled_record"
            + " (record_id, aggregate_id, sequence_no, instance_id, epoch, partition_no, invoked_at)"
            + " VALUES (?, ?, ?, ?, ?, ?, ?)";

    private final JdbcTemplate jdbc;
    private final DatabaseDialect dialect;
    private final String instanceId;
    private final Duration pause;
    /** Whether records of an event type named in {@code failing_event_type} fail (a query per call, so opt-in). */
    private final boolean failureSwitch;

    HandledRecordWriter(JdbcTemplate jdbc, DatabaseDialect dialect, String instanceId, Duration pause,
            boolean failureSwitch) {
        this.jdbc = jdbc;
        this.dialect = dialect;
        this.instanceId = instanceId;
        this.pause = pause;
        this.failureSwitch = failureSwitch;
    }

    @Override
    public void process(OutboxRecord record) throws InterruptedException {
        if (failureSwitch && isFailing(record.getEventType())) {
            throw new IllegalStateException("event type " + record.getEventType()
                    + " is listed in failing_event_type: the cluster test makes it fail");
        }
        handled(record.getId(), record.getAggregateId(), record.getSequence(), record.getEpoch(),
                record.getPartition());
    }

    /** The same row for a call of a typed handler. */
    void handled(RecordMetadata record) throws InterruptedException {
        handled(record.getId(), record.getAggregateId(), record.getSequence(), record.getEpoch(),
                record.getPartition());
    }

    private boolean isFailing(String eventType) {
        Long listed = jdbc.queryForObject("SELECT COUNT(*) FROM failing_event_type WHERE event_type = ?", Long.class,
                eventType);
        return listed != null && listed > 0;
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
