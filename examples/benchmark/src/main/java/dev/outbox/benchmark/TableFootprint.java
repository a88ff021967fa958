package dev.outbox.benchmark;

import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The outbox table's size and the work done on it, from pg_stat_user_tables and pg_statio_user_tables. The counters
 * are cumulative (TRUNCATE does not reset them), so a measurement reports the difference of two readings; they are
 * read after the nodes have exited, when their backends have reported everything.
 *
 * @param totalBytes pg_total_relation_size: heap, indexes and TOAST
 * @param heapBytes pg_relation_size
 * @param indexBytes pg_indexes_size
 * @param liveTuples n_live_tup
 * @param deadTuples n_dead_tup (page pruning lowers it; nothing else does with autovacuum off)
 * @param tuplesRead seq_tup_read + idx_tup_fetch: rows the scans returned, before the statements' own filters
 * @param indexScans idx_scan
 * @param heapBlocks heap_blks_hit + heap_blks_read
 * @param indexBlocks idx_blks_hit + idx_blks_read
 */
record TableFootprint(long totalBytes, long heapBytes, long indexBytes, long liveTuples, long deadTuples,
        long tuplesRead, long indexScans, long heapBlocks, long indexBlocks) {

    static TableFootprint read(JdbcTemplate jdbc, String table) {
        jdbc.execute("SELECT pg_stat_clear_snapshot()");
        return jdbc.queryForObject("""
                SELECT pg_total_relation_size(s.relid) AS total, pg_relation_size(s.relid) AS heap,
                       pg_indexes_size(s.relid) AS indexes, s.n_live_tup, s.n_dead_tup,
                       COALESCE(s.seq_tup_read, 0) + COALESCE(s.idx_tup_fetch, 0) AS tuples_read,
                       COALESCE(s.idx_scan, 0) AS idx_scan,
                       COALESCE(io.heap_blks_hit, 0) + COALESCE(io.heap_blks_read, 0) AS heap_blocks,
                       COALESCE(io.idx_blks_hit, 0) + COALESCE(io.idx_blks_read, 0) AS index_blocks
                FROM pg_stat_user_tables s JOIN pg_statio_user_tables io ON io.relid = s.relid
                WHERE s.relname = ? AND s.schemaname = current_schema()
                """, (rs, row) -> new TableFootprint(rs.getLong("total"), rs.getLong("heap"), rs.getLong("indexes"),
                rs.getLong("n_live_tup"), rs.getLong("n_dead_tup"), rs.getLong("tuples_read"), rs.getLong("idx_scan"),
                rs.getLong("heap_blocks"), rs.getLong("index_blocks")), table);
    }

    /** This reading's sizes and tuple counts, and the work done since {@code before}, per record handled. */
    Map<String, Object> describeSince(TableFootprint before, long records) {
        Map<String, Object> described = new LinkedHashMap<>();
        described.put("totalBytes", totalBytes);
        described.put("heapBytes", heapBytes);
        described.put("indexBytes", indexBytes);
        described.put("liveTuples", liveTuples);
        described.put("deadTuples", deadTuples);
        described.put("tuplesRead", tuplesRead - before.tuplesRead);
        described.put("indexScans", indexScans - before.indexScans);
        described.put("heapBlocks", heapBlocks - before.heapBlocks);
        described.put("indexBlocks", indexBlocks - before.indexBlocks);
        double perRecord = records == 0 ? 0 : 1.0 / records;
        described.put("tuplesReadPerRecord", Stats.round((tuplesRead - before.tuplesRead) * perRecord, 2));
        described.put("blocksPerRecord",
                Stats.round((heapBlocks - before.heapBlocks + indexBlocks - before.indexBlocks) * perRecord, 2));
        return described;
    }

    static String megabytes(long bytes) {
        return String.format("%,.1f MB", bytes / 1_048_576.0);
    }
}
