package dev.outbox.benchmark;

import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The outbox table of the console benchmark, filled by one {@code INSERT … SELECT … generate_series} on the schema the
 * library's changelog created: {@code records} records in sequence order, created one every
 * {@value #SECONDS_PER_RECORD} s up to now, over all 256 partitions; the newest {@code newRecords} NEW, every
 * {@code failedStride}-th of the others FAILED, the rest COMPLETED. FAILED records vary by handler
 * ({@value #HANDLERS}), event type ({@value #EVENT_TYPES}), error text (a timeout for records whose number is a
 * multiple of {@value #TIMEOUT_STRIDE}: a fifth of the FAILED ones with the default stride of 10) and time (their
 * last attempt fell due a minute after they were created). Failures are spread over the whole table, as over an outbox's life.
 */
final class ConsoleRecordLoad {

    static final int HANDLERS = 7;
    static final int EVENT_TYPES = 23;
    static final int AGGREGATES = 100_000;
    static final int TIMEOUT_STRIDE = 50;
    static final int SECONDS_PER_RECORD = 2;

    private static final String INSERT = """
            INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no, created_at,
                completed_at, retry_count, next_retry_at, last_error, handler_id)
            SELECT gen_random_uuid()::text, s.status, 'order-' || (i %% %2$d), 'com.example.OrderEvent' || (i %% %3$d),
                '{"order":' || i || '}', (i %% 256)::int, s.created_at,
                CASE WHEN s.status = 'COMPLETED' THEN s.created_at + interval '50 milliseconds' END,
                CASE WHEN s.status = 'FAILED' THEN 3 ELSE 0 END,
                CASE WHEN s.status = 'FAILED' THEN s.created_at + interval '1 minute' ELSE s.created_at END,
                CASE WHEN s.status <> 'FAILED' THEN NULL
                     WHEN i %% %4$d = 0 THEN 'java.net.SocketTimeoutException: Read timed out after 30000 ms'
                     ELSE 'java.lang.IllegalStateException: order ' || i || ' refused by rule R' || (i %% 97) END,
                'handler-' || (i %% %5$d)
            FROM generate_series(1, %1$d) AS i,
            LATERAL (SELECT CASE WHEN i > %1$d - %6$d THEN 'NEW' WHEN i %% %7$d = 0 THEN 'FAILED'
                                 ELSE 'COMPLETED' END AS status,
                            now() - (%1$d - i) * interval '%8$d seconds' AS created_at) AS s
            ORDER BY i
            """;

    private ConsoleRecordLoad() {
    }

    /** Inserts the records; returns how long it took in milliseconds. */
    static long fill(JdbcTemplate jdbc, int records, int newRecords, int failedStride) {
        if (newRecords >= records) {
            throw new IllegalArgumentException("--new-records must be fewer than --records");
        }
        long start = System.nanoTime();
        jdbc.execute(INSERT.formatted(records, AGGREGATES,
                EVENT_TYPES, TIMEOUT_STRIDE, HANDLERS, newRecords, failedStride, SECONDS_PER_RECORD));
        return (System.nanoTime() - start) / 1_000_000;
    }
}
