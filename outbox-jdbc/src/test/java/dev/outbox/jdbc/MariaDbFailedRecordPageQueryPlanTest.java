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
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * {@link PostgresFailedRecordPageQueryPlanTest} on MariaDB, which has no partial indexes: the operator console's
 * statements on FAILED records read the FAILED entries of the (status, sequence_no) index of 001, or another index that
 * bounds what they read, never the whole record table nor the whole of an index, and the pages come in index order,
 * from their cursor, never sorted. 100,000 FAILED records and 300,000 COMPLETED ones newer than all of them (a walk
 * down the sequence_no key would pass every one of those first), without statistics (deleted as
 * {@link MariaDbStatementPlanTest} deletes them) and after ANALYZE TABLE. The plans are ANALYZE FORMAT=JSON's: the
 * plan EXPLAIN FORMAT=JSON shows, run, with the pages each read touched.
 */
class MariaDbFailedRecordPageQueryPlanTest {

    private static final int FAILED = 100_000;
    private static final int ROWS = 4 * FAILED; // the oldest FAILED, the others COMPLETED
    private static final int PAGE = 50;
    private static final String RECORD_TABLE = AbstractStatementPlanTest.RECORD_TABLE;
    private static final String PRIMARY = "PRIMARY";
    private static final String STATUS_SEQUENCE = "idx_outbox_record_status_seq";
    private static final String AGGREGATE_SEQUENCE = "idx_outbox_record_aggregate_seq";
    private static final String PARTITION_STATUS_RETRY = "idx_outbox_record_partition_status_retry";
    /** The pages an unfiltered page of 50 may touch: measured 3 to 154, with or without statistics. */
    private static final long MAX_PAGE_PAGES = 500;
    /**
     * The pages a filtered page may touch, bounded to {@link OutboxAdmin#EXAMINED_PER_PAGE} FAILED records when it
     * matches nothing (measured 30,024), and the statement that finds the bound (21). Read from the end of the FAILED
     * entries rather than from the cursor, a page newest first from the middle touched 150,000.
     */
    private static final long MAX_FILTERED_PAGES = 40_000;
    /** The pages the counts behind 100 FAILED records may touch: measured 20,727. */
    private static final long MAX_NEW_BEHIND_PAGES = 40_000;
    /** A partition's open records: each half seeks its status, in the index of 001 by partition or by status. */
    private static final Map<String, Set<String>> PARTITION_KEYS = Map.of("r",
            Set.of(PARTITION_STATUS_RETRY, STATUS_SEQUENCE));

    /**
     * A statement to explain: the indexes each of its reads of the record table (by the alias it gives the table) may
     * use, whether its rows must come in index order, and how many pages its reads of the table may touch.
     */
    private record Expected(BoundStatement statement, Map<String, Set<String>> keysByAlias, boolean ordered,
            long maxPages) {

        /** A page, or where one stops: the FAILED entries of the (status, sequence_no) index, in order. */
        static Expected page(BoundStatement statement, long maxPages) {
            return new Expected(statement, Map.of("r", Set.of(STATUS_SEQUENCE)), true, maxPages);
        }

        /** A statement that reads what it counts, through the indexes given. */
        static Expected counting(BoundStatement statement, Map<String, Set<String>> keysByAlias) {
            return new Expected(statement, keysByAlias, false, Long.MAX_VALUE);
        }
    }

    @Test
    void everyStatementIsReadThroughAnIndexWithOrWithoutStatistics() throws Exception {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.MARIADB)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            JdbcRecordStore store = new JdbcRecordStore(db.dataSource(), DatabaseDialect.MARIADB);
            try (Connection connection = db.dataSource().getConnection();
                    Statement statement = connection.createStatement()) {
                statement.execute("INSERT INTO " + RECORD_TABLE + " (id, status, aggregate_id, event_type, payload, "
                        + "partition_no, created_at, next_retry_at, last_error, handler_id) "
                        + "SELECT CONCAT('r-', seq), IF(seq <= " + FAILED + ", 'FAILED', 'COMPLETED'), "
                        + "CONCAT('agg-', seq % 5000), CONCAT('E', seq % 3), '{}', seq % 256, "
                        + "TIMESTAMPADD(SECOND, -(" + ROWS + " - seq), UTC_TIMESTAMP(6)), "
                        + "TIMESTAMPADD(SECOND, -(" + ROWS + " - seq), UTC_TIMESTAMP(6)), "
                        + "IF(seq <= " + FAILED + ", CONCAT('java.io.IOException: broker ', seq % 10), NULL), "
                        + "CONCAT('h', seq % 7) FROM seq_1_to_" + ROWS);
                long middle = sequenceOf(statement, "r-" + FAILED / 2);
                long lastFailed = sequenceOf(statement, "r-" + FAILED);
                Map<String, Expected> statements = consoleStatements(store, middle, lastFailed);
                assertPlans(connection, statements);
            }
            assertOpenRecordsReadThroughIndexes(store, db);
            FetchedRows page = store.findFailedPage(FailedRecordFilter.any(), FailedRecordOrder.NEWEST_FIRST, null,
                    null, PAGE);
            // Rows written by SQL in partitions their aggregates do not hash to: a page shows them as unreadable.
            assertThat(page.unreadable()).hasSize(PAGE);
            assertThat(page.unreadable().get(0).id()).isEqualTo("r-" + FAILED);
            assertThat(store.countFailed(FailedRecordFilter.any().withErrorContaining("BROKER 3")))
                    .isEqualTo(FAILED / 10);
        }
    }

    /** The pages and counts a console asks for, by what each is. */
    private static Map<String, Expected> consoleStatements(JdbcRecordStore store, long middle, long lastFailed) {
        JdbcFailedRecords failed = store.failedRecords();
        FailedRecordFilter any = FailedRecordFilter.any();
        Map<String, Expected> statements = new LinkedHashMap<>();
        statements.put("oldest first", Expected.page(failed.pageStatement(any, FailedRecordOrder.OLDEST_FIRST, null,
                null, PAGE), MAX_PAGE_PAGES));
        statements.put("newest first", Expected.page(failed.pageStatement(any, FailedRecordOrder.NEWEST_FIRST, null,
                null, PAGE), MAX_PAGE_PAGES));
        statements.put("oldest first after the middle", Expected.page(failed.pageStatement(any,
                FailedRecordOrder.OLDEST_FIRST, middle, null, PAGE), MAX_PAGE_PAGES));
        statements.put("newest first after the middle", Expected.page(failed.pageStatement(any,
                FailedRecordOrder.NEWEST_FIRST, middle, null, PAGE), MAX_PAGE_PAGES));
        statements.put("oldest first after the last", Expected.page(failed.pageStatement(any,
                FailedRecordOrder.OLDEST_FIRST, lastFailed, null, PAGE), MAX_PAGE_PAGES));
        statements.put("by handler and error", Expected.page(failed.pageStatement(any.withHandlerId("h3")
                .withErrorContaining("Broker 4"), FailedRecordOrder.NEWEST_FIRST, middle, null, PAGE),
                MAX_FILTERED_PAGES));
        statements.put("by event type and age", Expected.page(failed.pageStatement(any.withEventType("E1")
                .createdBetween(null, Instant.now().minusSeconds(ROWS - FAILED / 2)), FailedRecordOrder.OLDEST_FIRST,
                null, null, PAGE), MAX_FILTERED_PAGES));
        // a filter that matches nothing, as OutboxAdmin bounds it: where to stop, then the page up to there
        statements.put("where a filtered page stops", Expected.page(failed.sequenceAfterStatement(
                FailedRecordOrder.OLDEST_FIRST, middle, OutboxAdmin.EXAMINED_PER_PAGE), MAX_FILTERED_PAGES));
        Long through = store.failedSequenceAfter(FailedRecordOrder.OLDEST_FIRST, middle,
                OutboxAdmin.EXAMINED_PER_PAGE);
        assertThat(through).as("a bound: more than %d FAILED records after the middle", OutboxAdmin.EXAMINED_PER_PAGE)
                .isNotNull();
        statements.put("no match, bounded", Expected.page(failed.pageStatement(any.withErrorContaining("no such text"),
                FailedRecordOrder.OLDEST_FIRST, middle, through, PAGE), MAX_FILTERED_PAGES));
        statements.put("count", Expected.counting(failed.countStatement(any), Map.of("r", Set.of(STATUS_SEQUENCE))));
        // Not asserted: a count by handler and error reads the whole table (access_type ALL), with or without
        // statistics. A quarter of the rows FAILED, MariaDB prices a lookup of each as dearer than a read of every
        // row, and here rightly so: 100 ms warm, against 200 ms through the index (FORCE INDEX). With 1,100,000
        // COMPLETED records beside the 100,000 FAILED it reads them through the index by itself.
        statements.put("one partition's open records", Expected.counting(failed.partitionStatement(7,
                Instant.now()), PARTITION_KEYS));
        return statements;
    }

    /**
     * What a page's FAILED records hold back, and a partition's open records, with NEW records behind some of the
     * FAILED ones: the FAILED records by id, each count through its aggregate's entries in the (aggregate_id,
     * sequence_no) index, without statistics and after ANALYZE TABLE.
     */
    private static void assertOpenRecordsReadThroughIndexes(JdbcRecordStore store, TestDatabase db) throws Exception {
        try (Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            statement.execute("INSERT INTO " + RECORD_TABLE + " (id, status, aggregate_id, event_type, payload, "
                    + "partition_no, created_at, next_retry_at, handler_id) SELECT CONCAT('n-', seq), 'NEW', "
                    + "CONCAT('agg-', seq % 5000), 'E1', '{}', seq % 256, UTC_TIMESTAMP(6), UTC_TIMESTAMP(6), "
                    + "CONCAT('h', seq % 7) FROM seq_1_to_35000");
            List<String> ids = new ArrayList<>();
            for (int i = 1; i <= PAGE * 2; i++) {
                ids.add("r-" + (FAILED - i));
            }
            JdbcFailedRecords failed = store.failedRecords();
            assertPlans(connection, Map.of(
                    "new records behind FAILED ones", new Expected(failed.newBehindStatement(ids),
                            Map.of("f", Set.of(PRIMARY), "n", Set.of(AGGREGATE_SEQUENCE)), false,
                            MAX_NEW_BEHIND_PAGES),
                    "one partition's open records, some NEW", Expected.counting(failed.partitionStatement(7,
                            Instant.now()), PARTITION_KEYS)));
            Map<String, Long> behind = store.countNewBehind(ids);
            assertThat(behind).as("every FAILED id answered").hasSize(ids.size());
            assertThat(behind.values()).as("NEW records behind some of them").anyMatch(count -> count > 0);
        }
    }

    /** The statements' plans without statistics, then after ANALYZE TABLE, each as expected. */
    private static void assertPlans(Connection connection, Map<String, Expected> statements) throws SQLException {
        MariaDbStatementPlanTest.forgetStatistics(connection);
        for (boolean analyzed : List.of(false, true)) {
            if (analyzed) {
                AbstractStatementPlanTest.execute(connection, "ANALYZE TABLE " + RECORD_TABLE);
            }
            for (Map.Entry<String, Expected> statement : statements.entrySet()) {
                Expected expected = statement.getValue();
                JsonNode plan = AbstractStatementPlanTest.readPlan(connection, expected.statement().prelude(),
                        "ANALYZE FORMAT=JSON " + AbstractStatementPlanTest.positionalSql(expected.statement()),
                        AbstractStatementPlanTest.parameterSetter(expected.statement()));
                assertThat(violations(plan, expected)).as("%s, analyzed %s; plan:%n%s", statement.getKey(), analyzed,
                        plan.toPrettyString()).isEmpty();
            }
        }
    }

    /**
     * What is wrong with the plan: a read of the record table that is not through one of the expected indexes, or
     * that reads all of the table or all of an index; a sort; an expected read that is not there.
     */
    private static List<String> violations(JsonNode plan, Expected expected) {
        List<String> violations = new ArrayList<>();
        List<JsonNode> tables = AbstractStatementPlanTest.nodes(plan).filter(node -> node.has("table_name")).toList();
        for (JsonNode table : tables) {
            String name = table.path("table_name").asString("");
            if (name.startsWith("<")) {
                continue; // a derived table or a union's result, read as a whole by design
            }
            String access = table.path("access_type").asString("");
            String key = table.path("key").asString("");
            Set<String> keys = expected.keysByAlias().get(name);
            if (keys == null) {
                violations.add("reads " + name + ", not a read this statement was expected to make");
            } else if (!keys.contains(key)) {
                violations.add("reads " + RECORD_TABLE + " as " + name + " through " + (key.isEmpty() ? "no index"
                        : key) + " (" + access + "), not one of " + keys);
            }
            if (access.equals("ALL") || access.equals("index")) {
                violations.add("reads all of " + RECORD_TABLE + " as " + name + " (access_type " + access + ")");
            }
        }
        for (String alias : expected.keysByAlias().keySet()) {
            if (tables.stream().noneMatch(table -> table.path("table_name").asString("").equals(alias))) {
                violations.add("no read of " + RECORD_TABLE + " as " + alias);
            }
        }
        long pages = pagesAccessed(plan);
        if (pages > expected.maxPages()) {
            violations.add("touches " + pages + " pages of " + RECORD_TABLE + ", more than " + expected.maxPages());
        }
        if (expected.ordered() && AbstractStatementPlanTest.nodes(plan).anyMatch(node -> node.has("filesort")
                || node.path("using_filesort").asBoolean(false))) {
            violations.add("sorts the records (filesort): reads every one that matches, not the first few");
        }
        return violations;
    }

    /** The pages the statement's reads of the record table touched, as ANALYZE counts them. */
    private static long pagesAccessed(JsonNode plan) {
        return AbstractStatementPlanTest.nodes(plan).filter(node -> node.has("table_name"))
                .filter(table -> !table.path("table_name").asString("").startsWith("<"))
                .mapToLong(table -> table.path("r_engine_stats").path("pages_accessed").asLong(0)).sum();
    }

    private static long sequenceOf(Statement statement, String id) throws SQLException {
        try (ResultSet rows = statement.executeQuery("SELECT sequence_no FROM " + RECORD_TABLE + " WHERE id = '" + id
                + "'")) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }
}
