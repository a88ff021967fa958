package dev.outbox.boot.cluster;

import dev.outbox.handler.HandlerRegistration;
import dev.outbox.handler.RecordMetadata;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The transactional handler of the nodes started with {@code cluster.projection=true}: a projection in the outbox's
 * own (PostgreSQL) database. Its JdbcTemplate is on the node's DataSource, so its writes join the transaction the
 * engine runs it in with its record's fenced completion: they commit once, with the completion, or not at all. Each
 * call is first logged ({@link #CALL}), outside any transaction, so the tests can tell calls whose writes were rolled
 * back from calls that never happened.
 */
final class ProjectionWriter {

    static final String HANDLER_ID = "projection";

    /**
     * How long the first call of an aggregate of {@link #heldAggregate} holds its transaction open on the instance
     * the aggregate names: long enough for a test that sees {@link #HOLD_LINE} in the log to freeze the instance
     * inside that transaction. Once per JVM, so that the held records of the other partitions pass.
     */
    static final Duration HOLD = Duration.ofSeconds(5);

    /** The log line of the held call; group 1 is the record id. */
    static final Pattern HOLD_LINE = Pattern.compile("projection hold: record (\\S+)");

    /** The log line of a call; group 1 is the record id, 2 the epoch, 3 the partition. */
    static final Pattern CALL = Pattern.compile("projection call: record (\\S+) epoch (\\d+) partition (\\d+)");

    private static final Logger log = LoggerFactory.getLogger(ProjectionWriter.class);

    private static final String COUNT = "INSERT INTO projection_counter (aggregate_id, handled) VALUES (?, 1)"
            + " ON CONFLICT (aggregate_id) DO UPDATE SET handled = projection_counter.handled + 1";
    private static final String APPEND = "INSERT INTO projection_row"
            + " (record_id, aggregate_id, sequence_no, instance_id, epoch, partition_no) VALUES (?, ?, ?, ?, ?, ?)";

    private final JdbcTemplate jdbc;
    private final String instanceId;
    private final Duration pause;
    private final AtomicBoolean held = new AtomicBoolean();

    ProjectionWriter(JdbcTemplate jdbc, String instanceId, Duration pause) {
        this.jdbc = jdbc;
        this.instanceId = instanceId;
        this.pause = pause;
    }

    /**
     * The {@code n}th aggregate whose projection calls hold their transaction open for {@link #HOLD} on
     * {@code instanceId} (and only there: another owner projects it without delay).
     */
    static String heldAggregate(String instanceId, int n) {
        return heldPrefix(instanceId) + n;
    }

    private static String heldPrefix(String instanceId) {
        return "held-on-" + instanceId + "-";
    }

    HandlerRegistration<ClusterEvent> registration() {
        return HandlerRegistration.builder(HANDLER_ID, ClusterEvent.class).eventType(HANDLER_ID).transactional(true)
                .handler((event, metadata) -> project(metadata)).build();
    }

    private void project(RecordMetadata record) throws InterruptedException {
        log.info("projection call: record {} epoch {} partition {}", record.getId(), record.getEpoch(),
                record.getPartition());
        // Inside the transaction: a node frozen here is frozen in the middle of it.
        if (record.getAggregateId().startsWith(heldPrefix(instanceId)) && held.compareAndSet(false, true)) {
            log.info("projection hold: record {} for {}", record.getId(), HOLD);
            Thread.sleep(HOLD.toMillis());
        } else if (!pause.isZero()) {
            Thread.sleep(pause.toMillis());
        }
        Long sequence = Objects.requireNonNull(record.getSequence(), "sequence");
        jdbc.update(COUNT, record.getAggregateId());
        jdbc.update(APPEND, record.getId(), record.getAggregateId(), sequence, instanceId, record.getEpoch(),
                record.getPartition());
    }

    /** A call as logged: the record's id, and the partition and epoch it was handed under. */
    record Call(String recordId, long epoch, int partition) {

        /** The call a log line reports, or null when the line is no call. */
        static @Nullable Call parse(String line) {
            Matcher matcher = CALL.matcher(line);
            return matcher.find() ? new Call(matcher.group(1), Long.parseLong(matcher.group(2)),
                    Integer.parseInt(matcher.group(3))) : null;
        }
    }
}
