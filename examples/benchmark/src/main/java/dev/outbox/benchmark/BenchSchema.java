package dev.outbox.benchmark;

/** The benchmark's own tables, beside the outbox schema in the benchmark database. */
public final class BenchSchema {

    /**
     * One row per handler call, written by the nodes in batches on a connection of their own. UNLOGGED: it is
     * instrumentation, so it should add as little WAL and fsync work as possible to the load being measured.
     * {@code handled_at} is the handler's {@link BenchClock} at entry; {@code call_no} counts the node's calls.
     */
    public static final String CREATE_HANDLED = "CREATE UNLOGGED TABLE IF NOT EXISTS bench_handled ("
            + " record_id VARCHAR(36) NOT NULL,"
            + " aggregate_id VARCHAR(255) NOT NULL,"
            + " sequence_no BIGINT NOT NULL,"
            + " instance_id VARCHAR(255) NOT NULL,"
            + " call_no BIGINT NOT NULL,"
            + " handled_at BIGINT NOT NULL)";

    public static final String INSERT_HANDLED = "INSERT INTO bench_handled"
            + " (record_id, aggregate_id, sequence_no, instance_id, call_no, handled_at) VALUES (?, ?, ?, ?, ?, ?)";

    public static final String COPY_HANDLED = "COPY bench_handled"
            + " (record_id, aggregate_id, sequence_no, instance_id, call_no, handled_at) FROM STDIN";

    /** The plain-JDBC reference table: the outbox table's columns, defaults, constraints and indexes. */
    public static final String REFERENCE_TABLE = "bench_reference_record";

    private BenchSchema() {
    }
}
