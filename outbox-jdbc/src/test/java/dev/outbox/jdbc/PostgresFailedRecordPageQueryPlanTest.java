package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.FailedRecordFilter;
import dev.outbox.spi.FailedRecordOrder;
import dev.outbox.spi.FetchedRows;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.namedparam.NamedParameterUtils;
import org.springframework.jdbc.core.namedparam.ParsedSql;

/**
 * Issue 33: a page of FAILED records is read through an index, in order, from its cursor, with 100,000 FAILED records
 * and 300,000 COMPLETED ones newer than all of them (a walk down the sequence_no key would pass every one of those
 * first): before the table was ever analyzed (autovacuum off here, and a burst of failures outruns it anywhere) and
 * after.
 */
class PostgresFailedRecordPageQueryPlanTest {

    private static final int FAILED = 100_000;
    private static final int ROWS = 4 * FAILED; // the oldest FAILED, the others COMPLETED
    private static final int PAGE = 50;
    /** The buffers an unfiltered page of 50 may touch: measured 2 to 4, with or without statistics. */
    private static final int MAX_PAGE_BUFFERS = 50;
    /**
     * The buffers a filtered page that matches nothing may touch, bounded to {@link OutboxAdmin#EXAMINED_PER_PAGE}
     * FAILED records, and the statement that finds the bound; unbounded, such a page read every FAILED record's row.
     */
    private static final int MAX_BOUNDED_BUFFERS = 12_000;
    /** The buffers the counts behind 100 FAILED records may touch: measured 1,300. */
    private static final int MAX_NEW_BEHIND_BUFFERS = 5_000;
    private static final Pattern BUFFERS = Pattern.compile("Buffers: shared hit=(\\d+)(?: read=(\\d+))?");

    @Test
    void everyPageIsReadThroughAnIndexWithOrWithoutStatistics() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            JdbcRecordStore store = new JdbcRecordStore(db.dataSource(), DatabaseDialect.POSTGRESQL);
            try (Connection connection = db.dataSource().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at, last_error, handler_id) "
                        + "SELECT 'r-' || g, CASE WHEN g <= " + FAILED + " THEN 'FAILED' ELSE 'COMPLETED' END, "
                        + "'agg-' || (g % 5000), "
                        + "'E' || (g % 3), '{}', g % 256, now() - (" + ROWS + " - g) * INTERVAL '1 second', "
                        + "now() - (" + ROWS + " - g) * INTERVAL '1 second', "
                        + "CASE WHEN g <= " + FAILED + " THEN 'java.io.IOException: broker ' || (g % 10) END, "
                        + "'h' || (g % 7) "
                        + "FROM generate_series(1, " + ROWS + ") g");
                long middle = sequenceOf(statement, "r-" + FAILED / 2);
                long lastFailed = sequenceOf(statement, "r-" + FAILED);

                Map<String, String> withoutStatistics = plans(connection, store, middle, lastFailed);
                statement.execute("ANALYZE outbox_record");
                Map<String, String> withStatistics = plans(connection, store, middle, lastFailed);

                for (Map<String, String> plans : List.of(withoutStatistics, withStatistics)) {
                    plans.forEach((page, plan) -> {
                        assertThat(plan).as("%s; plan:%n%s", page, plan)
                                .doesNotContain("Seq Scan on outbox_record").doesNotContain("Sort Key")
                                .contains("idx_outbox_record_failed_seq");
                    });
                    for (String bounded : List.of("where a filtered page stops", "no match, bounded")) {
                        String plan = plans.get(bounded);
                        assertThat(buffersTouched(plan)).as("%s; plan:%n%s", bounded, plan)
                                .isLessThanOrEqualTo(MAX_BOUNDED_BUFFERS);
                    }
                    for (String unfiltered : List.of("oldest first", "newest first", "oldest first after the middle",
                            "newest first after the middle", "oldest first after the last")) {
                        String plan = plans.get(unfiltered);
                        assertThat(plan).as("%s; plan:%n%s", unfiltered, plan)
                                .containsPattern("Index Scan( Backward)? using idx_outbox_record_failed_seq");
                        assertThat(buffersTouched(plan)).as("%s; plan:%n%s", unfiltered, plan)
                                .isLessThanOrEqualTo(MAX_PAGE_BUFFERS);
                    }
                }
            }
            assertNewBehindReadThroughIndexes(store, db);
            FetchedRows page = store.findFailedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST, null,
                    null, PAGE);
            // Rows written by SQL in partitions their aggregates do not hash to: a page shows them as unreadable.
            assertThat(page.unreadable()).hasSize(PAGE);
            assertThat(page.unreadable().get(0).id()).isEqualTo("r-" + FAILED);
            assertThat(store.countFailed(FailedRecordFilter.any().withErrorContaining("BROKER 3")))
                    .isEqualTo(FAILED / 10);
        }
    }

    /**
     * The plans of the pages and counts a console asks for, by what each is. Measured: pages 0.01-0.7 ms (2 to 85
     * buffers), counts of the 100,000 FAILED records 25-33 ms, with or without statistics. A partition's open records
     * read every FAILED one (and every NEW one) through the partial indexes: with 1,000,000 rows of which 100,000
     * FAILED and 20,000 NEW, 24-68 ms warm (2,583 buffers), 105 ms cold, with or without statistics.
     */
    private static Map<String, String> plans(Connection connection, JdbcRecordStore store, long middle,
            long lastFailed) throws SQLException {
        JdbcFailedRecords failed = store.failedRecords();
        FailedRecordFilter any = FailedRecordFilter.any();
        Map<String, String> plans = new LinkedHashMap<>();
        plans.put("oldest first", explain(connection, failed.pageStatement(any, FailedRecordOrder.OLDEST_FIRST, null,
                null, PAGE)));
        plans.put("newest first", explain(connection, failed.pageStatement(any, FailedRecordOrder.NEWEST_FIRST, null,
                null, PAGE)));
        plans.put("oldest first after the middle", explain(connection, failed.pageStatement(any,
                FailedRecordOrder.OLDEST_FIRST, middle, null, PAGE)));
        plans.put("newest first after the middle", explain(connection, failed.pageStatement(any,
                FailedRecordOrder.NEWEST_FIRST, middle, null, PAGE)));
        plans.put("oldest first after the last", explain(connection, failed.pageStatement(any,
                FailedRecordOrder.OLDEST_FIRST, lastFailed, null, PAGE)));
        plans.put("by handler and error", explain(connection, failed.pageStatement(any.withHandlerId("h3")
                .withErrorContaining("Broker 4"), FailedRecordOrder.NEWEST_FIRST, middle, null, PAGE)));
        plans.put("by event type and age", explain(connection, failed.pageStatement(any.withEventType("E1")
                .createdBetween(null, Instant.now().minusSeconds(ROWS - FAILED / 2)), FailedRecordOrder.OLDEST_FIRST,
                null, null, PAGE)));
        // a filter that matches nothing, as OutboxAdmin bounds it: where to stop, then the page up to there
        plans.put("where a filtered page stops", explain(connection, failed.sequenceAfterStatement(
                FailedRecordOrder.OLDEST_FIRST, middle, OutboxAdmin.EXAMINED_PER_PAGE)));
        Long through = store.failedSequenceAfter(FailedRecordOrder.OLDEST_FIRST, middle,
                OutboxAdmin.EXAMINED_PER_PAGE);
        assertThat(through).as("a bound: more than %d FAILED records after the middle", OutboxAdmin.EXAMINED_PER_PAGE)
                .isNotNull();
        plans.put("no match, bounded", explain(connection, failed.pageStatement(
                any.withErrorContaining("no such text"), FailedRecordOrder.OLDEST_FIRST, middle, through, PAGE)));
        plans.put("count", explain(connection, failed.countStatement(any)));
        plans.put("count by handler and error", explain(connection, failed.countStatement(any.withHandlerId("h3")
                .withErrorContaining("Broker 4"))));
        // no index has partition_no (changeset 010): the partial indexes of NEW and FAILED records, never the others
        plans.put("one partition's open records", explain(connection, failed.partitionStatement(7, Instant.now())));
        return plans;
    }

    /**
     * What a page's FAILED records hold back, for a page of them with NEW records behind some: each count reads its
     * aggregate's entries in the index of open records, however stale the statistics. Measured: 100 ids, about 1 ms
     * and 1,300 buffers; through the index of NEW records by next_retry_at, which statistics taken before the NEW
     * records made the planner choose for the standard statement, 520 ms and 28,800 buffers.
     */
    private static void assertNewBehindReadThroughIndexes(JdbcRecordStore store, TestDatabase db) throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no,"
                    + " created_at, next_retry_at, handler_id) SELECT 'n-' || g, 'NEW', 'agg-' || (g % 5000), 'E1',"
                    + " '{}', g % 256, now(), now(), 'h' || (g % 7) FROM generate_series(1, 35000) g");
            List<String> ids = new ArrayList<>();
            for (int i = 1; i <= PAGE * 2; i++) {
                ids.add("r-" + (FAILED - i));
            }
            for (boolean analyzed : List.of(false, true)) {
                if (analyzed) {
                    statement.execute("ANALYZE outbox_record");
                }
                String plan = explain(connection, store.failedRecords().newBehindStatement(ids));
                assertThat(plan).as("analyzed %s; plan:%n%s", analyzed, plan)
                        .doesNotContain("Seq Scan on outbox_record").contains("pk_outbox_record")
                        .contains("idx_outbox_record_open_aggregate_seq");
                assertThat(buffersTouched(plan)).as("analyzed %s; plan:%n%s", analyzed, plan)
                        .isLessThanOrEqualTo(MAX_NEW_BEHIND_BUFFERS);
            }
            Map<String, Long> behind = store.countNewBehind(ids);
            assertThat(behind).as("every FAILED id answered").hasSize(ids.size());
            assertThat(behind.values()).as("NEW records behind some of them").anyMatch(count -> count > 0);
        }
    }

    private static long sequenceOf(Statement statement, String id) throws SQLException {
        try (ResultSet rows = statement.executeQuery("SELECT sequence_no FROM outbox_record WHERE id = '" + id + "'")) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }

    /** The plan of the statement as the store runs it, its prelude first. */
    private static String explain(Connection connection, BoundStatement statement) throws SQLException {
        ParsedSql parsed = NamedParameterUtils.parseSqlStatement(statement.sql());
        // a collection's values each fill one of the markers its parameter expands to
        List<Object> values = new ArrayList<>();
        for (Object value : NamedParameterUtils.buildValueArray(parsed, statement.parameters(), null)) {
            if (value instanceof Iterable<?> many) {
                many.forEach(values::add);
            } else {
                values.add(value);
            }
        }
        List<String> lines = PreludedQuery.firstColumn(connection, statement.prelude(),
                "EXPLAIN (ANALYZE, BUFFERS) " + NamedParameterUtils.substituteNamedParameters(parsed,
                        statement.parameters()), explain -> {
                            for (int i = 0; i < values.size(); i++) {
                                explain.setObject(i + 1, values.get(i));
                            }
                        });
        return String.join(System.lineSeparator(), lines);
    }

    private static int buffersTouched(@Nullable String plan) {
        Matcher buffers = BUFFERS.matcher(String.valueOf(plan));
        assertThat(buffers.find()).as("buffers in plan:%n%s", plan).isTrue();
        return Integer.parseInt(buffers.group(1)) + (buffers.group(2) == null ? 0 : Integer.parseInt(buffers.group(2)));
    }
}
