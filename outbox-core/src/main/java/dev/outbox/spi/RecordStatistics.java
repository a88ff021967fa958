package dev.outbox.spi;

import dev.outbox.OutboxRecordStatus;
import java.util.List;
import java.util.Map;

/**
 * Aggregate figures of the record table for monitoring. Each method is <em>one</em> grouped query, whatever the number
 * of partitions or statuses, so that metrics and health checks cost the database a fixed, small amount.
 */
public interface RecordStatistics {

    /** Records per status; a status without records may be absent. */
    Map<OutboxRecordStatus, Long> countByStatus();

    /**
     * For every partition and handler id that have NEW records: how many, and the oldest one's creation time. By
     * handler too, so that monitoring sees the records waiting for a handler their partition's owner lacks.
     */
    List<PartitionBacklog> pendingByPartitionAndHandler();
}
