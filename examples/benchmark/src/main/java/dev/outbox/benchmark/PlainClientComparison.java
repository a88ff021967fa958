package dev.outbox.benchmark;

import dev.outbox.benchmark.publish.BenchTarget;
import dev.outbox.benchmark.publish.PlainClientReference;
import dev.outbox.benchmark.publish.ReferenceMessage;
import dev.outbox.benchmark.publish.ReferenceRun;
import dev.outbox.processing.ProcessingOptions;
import java.util.List;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The publisher benchmark's plain-client reference: after the library drained a backlog to a broker, the broker's own
 * client publishes the same records' messages (same bodies and headers) to a destination of its own, with the
 * publisher's durability and acknowledgement semantics and a bounded window of unacknowledged messages; the drain's
 * rate over the client's is {@code drainRatioToPlainClient}.
 */
final class PlainClientComparison {

    /** The engine keeps up to ten batches in hand ({@code PollLoop.MAX_BATCHES_IN_HAND}): that many in flight. */
    static final int BATCHES_IN_HAND = 10;
    private static final String BATCH_SIZE_PROPERTY = "outbox.batch-size=";

    private PlainClientComparison() {
    }

    /**
     * The most records the library has in flight with the applications' {@code outbox.batch-size}: ten batches (the
     * engine's limit of records in hand), as long as there are that many aggregates (one record each in flight).
     */
    static int defaultWindow(List<String> appProperties) {
        int batchSize = appProperties.stream().filter(property -> property.startsWith(BATCH_SIZE_PROPERTY))
                .map(property -> Integer.parseInt(property.substring(BATCH_SIZE_PROPERTY.length()).trim()))
                .reduce((first, last) -> last).orElse(ProcessingOptions.DEFAULT_BATCH_SIZE);
        return BATCHES_IN_HAND * batchSize;
    }

    /** The messages the publisher sent for the records the table holds now, in the order they were written. */
    static List<ReferenceMessage> messages(JdbcTemplate jdbc) {
        return jdbc.query("SELECT id, aggregate_id, event_type, sequence_no, partition_no, created_at, payload"
                + " FROM outbox_record ORDER BY created_at, sequence_no", (rs, row) -> ReferenceMessage.of(
                        rs.getString("id"), rs.getString("aggregate_id"), rs.getString("event_type"),
                        rs.getLong("sequence_no"), rs.getInt("partition_no"),
                        rs.getTimestamp("created_at").toInstant(), rs.getString("payload")));
    }

    /** Runs the target's reference, if it has one, and adds its figures to {@code result}. */
    static void measure(BenchTarget target, List<ReferenceMessage> warmup, List<ReferenceMessage> measured,
            int window, Map<String, Object> result) {
        PlainClientReference reference = target.plainClientReference();
        if (reference == null || measured.size() < 2) {
            return;
        }
        ReferenceRun run;
        try {
            run = reference.run(warmup, measured, window);
        } catch (RuntimeException e) {
            System.out.println("  plain client FAILED: " + e);
            result.put("plainClientError", String.valueOf(e));
            return;
        }
        System.out.printf("  plain client: %,d messages in %.1f s: %,.0f messages/s (window %,d)%n", run.messages(),
                run.firstToLastAckSeconds(), run.messagesPerSecond(), window);
        result.put("plainClient", run.describe());
        result.put("plainClientMessagesPerSecond", run.messagesPerSecond());
        if (result.get("drainRecordsPerSecond") instanceof Double drain && run.messagesPerSecond() > 0) {
            result.put("drainRatioToPlainClient", Stats.round(drain / run.messagesPerSecond(), 2));
        }
    }
}
