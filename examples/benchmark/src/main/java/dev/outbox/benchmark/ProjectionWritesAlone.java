package dev.outbox.benchmark;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The transactional projection's writes without the outbox: what the database and the JDBC stack give the handler's
 * two statements per record alone, on the same machine, for the records the transactional drain just completed. As
 * many threads as the drain had workers, each over aggregates of its own (as lanes are), each in transactions of as
 * many records as the drain's transactions held on average, through a {@link JdbcClient} joining Spring transactions,
 * as the handler does. Once to warm up, then measured.
 */
final class ProjectionWritesAlone {

    private ProjectionWritesAlone() {
    }

    /** A record the drain completed: what the projection writes for it. */
    private record Projected(String id, String aggregateId, @Nullable Long sequence) {
    }

    static Map<String, Object> measure(DataSource dataSource, int threads, int recordsPerTransaction) {
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        List<Projected> records = jdbc.query("SELECT id, aggregate_id, sequence_no FROM outbox_record"
                + " ORDER BY sequence_no", (rs, row) -> new Projected(rs.getString("id"), rs.getString("aggregate_id"),
                        rs.getObject("sequence_no", Long.class)));
        List<List<Projected>> byThread = new ArrayList<>();
        for (int thread = 0; thread < threads; thread++) {
            byThread.add(new ArrayList<>());
        }
        records.forEach(record -> byThread.get(Math.floorMod(record.aggregateId().hashCode(), threads)).add(record));
        run(dataSource, byThread, recordsPerTransaction); // warm-up
        double seconds = run(dataSource, byThread, recordsPerTransaction);
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("records", records.size());
        result.put("threads", threads);
        result.put("recordsPerTransaction", recordsPerTransaction);
        result.put("seconds", Stats.round(seconds, 3));
        result.put("recordsPerSecond", Stats.rate(records.size(), seconds));
        System.out.printf("  the projection's writes alone: %,d records in %.1f s, %d threads, %d per transaction:"
                + " %,.0f records/s%n", records.size(), seconds, threads, recordsPerTransaction,
                Stats.rate(records.size(), seconds));
        return result;
    }

    /** Writes every thread's records from empty projection tables; returns the seconds it took. */
    private static double run(DataSource dataSource, List<List<Projected>> byThread, int recordsPerTransaction) {
        new JdbcTemplate(dataSource).execute("TRUNCATE " + ProjectionHandlers.ROWS_TABLE + ", "
                + ProjectionHandlers.COUNTERS_TABLE);
        JdbcClient client = JdbcClient.create(dataSource);
        TransactionTemplate transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        ExecutorService pool = Executors.newFixedThreadPool(byThread.size());
        try {
            long started = System.nanoTime();
            List<Future<?>> done = new ArrayList<>();
            for (List<Projected> records : byThread) {
                done.add(pool.submit(() -> {
                    for (int from = 0; from < records.size(); from += recordsPerTransaction) {
                        List<Projected> group = records.subList(from,
                                Math.min(records.size(), from + recordsPerTransaction));
                        transactions.executeWithoutResult(status -> group.forEach(record -> ProjectionHandlers
                                .project(client, record.id(), record.aggregateId(), record.sequence())));
                    }
                }));
            }
            for (Future<?> future : done) {
                future.get();
            }
            return Stats.seconds(System.nanoTime() - started);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing the projection alone", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("the projection's writes alone failed", e.getCause());
        } finally {
            pool.shutdownNow();
        }
    }
}
