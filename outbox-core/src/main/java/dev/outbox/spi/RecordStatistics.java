package dev.outbox.spi;

import dev.outbox.OutboxRecordStatus;
import java.util.LinkedHashMap;
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
     * Rows per status as stored, in the same one grouped query: the statuses of {@link #countByStatus()} by name, and
     * besides them every status the library does not know (rows written by SQL, such as {@code 'new'} or
     * {@code 'failed '}), each exactly as stored (a NULL status as the text {@code NULL}), so that monitoring can show
     * the rows no fetch would read. The default knows no other statuses: it suits a store that cannot hold them.
     *
     * @since 0.1.0
     */
    default Map<String, Long> countByStoredStatus() {
        Map<String, Long> counts = new LinkedHashMap<>();
        countByStatus().forEach((status, count) -> counts.put(status.name(), count));
        return counts;
    }

    /**
     * {@link #countByStoredStatus()} without the COMPLETED records: rows of every other status as stored, unknown ones
     * included. Records that are handled pile up as COMPLETED until a purge, so counting them reads the whole table;
     * the others are the few an operator acts on, and a store counts them through its indexes. The default counts
     * everything and leaves COMPLETED out: it suits a store whose counts cost nothing.
     *
     * @since 0.1.0
     */
    default Map<String, Long> countByStoredStatusExceptCompleted() {
        Map<String, Long> counts = new LinkedHashMap<>(countByStoredStatus());
        counts.remove(OutboxRecordStatus.COMPLETED.name());
        return counts;
    }

    /**
     * For every partition and handler id that have NEW records: how many, and the oldest one's creation time. By
     * handler too, so that monitoring sees the records waiting for a handler their partition's owner lacks.
     */
    List<PartitionBacklog> pendingByPartitionAndHandler();
}
