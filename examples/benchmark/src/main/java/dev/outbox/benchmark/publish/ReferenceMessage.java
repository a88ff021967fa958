package dev.outbox.benchmark.publish;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.publish.OutboxMessageHeaders;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Map;

/**
 * One message of a plain-client reference: what the library's publisher sends for a record (the payload as body, the
 * default outbox headers), so that the plain client moves the same bytes.
 */
public record ReferenceMessage(String recordId, String aggregateId, String eventType, Instant createdAt,
        Map<String, String> headers, byte[] body) {

    /** The message of a record as the database holds it; the epoch is the first one, as in the benchmark's runs. */
    public static ReferenceMessage of(String id, String aggregateId, String eventType, long sequence, int partition,
            Instant createdAt, String payload) {
        OutboxRecord record = OutboxRecord.restore().id(id).aggregateId(aggregateId).eventType(eventType)
                .sequence(sequence).partition(partition).createdAt(createdAt).nextRetryAt(createdAt)
                .status(OutboxRecordStatus.NEW).payload(payload).epoch(1).build();
        return new ReferenceMessage(id, aggregateId, eventType, createdAt,
                OutboxMessageHeaders.defaults().of(record), payload.getBytes(StandardCharsets.UTF_8));
    }
}
