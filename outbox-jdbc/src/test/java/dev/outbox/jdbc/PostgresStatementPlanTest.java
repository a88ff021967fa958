package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import org.springframework.jdbc.core.PreparedStatementSetter;
import tools.jackson.databind.JsonNode;

/**
 * {@link AbstractStatementPlanTest} on PostgreSQL (autovacuum or not, statistics lag behind), in custom plans (the
 * driver's first executions of a statement) and generic ones (pgjdbc prepares on the server from the fifth, and
 * PostgreSQL may keep one generic plan from then on, however the table grows).
 */
class PostgresStatementPlanTest extends AbstractStatementPlanTest {

    /** The application's table of records: ids as the outbox makes them, 10,000 aggregates round-robin. */
    private static String insertRecords(int first, int last, String status) {
        return "INSERT INTO " + RECORD_TABLE + " (id, status, aggregate_id, event_type, payload, partition_no, "
                + "created_at, completed_at, next_retry_at) SELECT gen_random_uuid()::text, '" + status + "', "
                + "'order-' || (g % 10000), 'OrderPlaced', '{\"orderId\":' || g || ',\"amount\":\"99.90\"}', "
                + "(g % 10000) % 256, now(), " + ("NEW".equals(status) ? "NULL" : "now()") + ", now() "
                + "FROM generate_series(" + first + ", " + last + ") g";
    }

    enum State implements StatisticsState {
        NEVER_ANALYZED("never analyzed, empty") {
            @Override
            public void prepare(Connection connection) {
                // As Liquibase leaves it: no statistics at all, the planner guesses from the table's few pages.
            }
        },
        BULK_LOADED("150,000 NEW records loaded, never analyzed") {
            @Override
            public void prepare(Connection connection) throws SQLException {
                execute(connection, insertRecords(1, 150_000, "NEW"));
            }
        },
        ANALYZED_WHILE_NEW_WAS_RARE("analyzed while NEW records were rare, then 150,000 NEW records loaded") {
            @Override
            public void prepare(Connection connection) throws SQLException {
                // The state of a running outbox after a burst, before autoanalyze catches up: the statistics (kept
                // across TRUNCATE) say NEW rows are rare, so the index of NEW rows looks like a few probes.
                execute(connection, insertRecords(1, 100_000, "COMPLETED"), "ANALYZE " + RECORD_TABLE,
                        "TRUNCATE " + RECORD_TABLE, insertRecords(100_001, 250_000, "NEW"));
            }
        },
        BELIEVED_TEN_MILLION_ROWS("analyzed, then believed to hold 10,000,000 records") {
            @Override
            public void prepare(Connection connection) throws SQLException {
                // Real statistics of a drained table (mostly COMPLETED), then the size the planner scales them to:
                // it takes reltuples/relpages as a density and multiplies by the relation's real page count.
                execute(connection, insertRecords(1, 19_000, "COMPLETED"), insertRecords(19_001, 20_000, "NEW"),
                        "ANALYZE " + RECORD_TABLE,
                        "UPDATE pg_class SET reltuples = 1e7, relpages = greatest(1, pg_relation_size(oid) / 8192) "
                                + "WHERE oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = '" + RECORD_TABLE
                                + "'::regclass) OR oid = '" + RECORD_TABLE + "'::regclass");
            }
        };

        private final String description;

        State(String description) {
            this.description = description;
        }

        @Override
        public String description() {
            return description;
        }
    }

    enum Mode implements PlanMode {
        CUSTOM("custom plan"),
        GENERIC("generic plan");

        private final String description;

        Mode(String description) {
            this.description = description;
        }

        @Override
        public String description() {
            return description;
        }
    }

    @Override
    TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }

    @Override
    String databaseName() {
        return "PostgreSQL";
    }

    @Override
    List<State> states() {
        return List.of(State.values());
    }

    @Override
    List<Mode> planModes() {
        return List.of(Mode.values());
    }

    /**
     * A custom plan is what EXPLAIN of the statement with its values bound shows: the planner takes them as constants,
     * as in the driver's first executions. The generic plan is made without values (so EXECUTE gives it nulls):
     * the statement is prepared and plan_cache_mode forces the generic plan. Either is planned after the statement's
     * prelude, in its implicit transaction, as the store runs it.
     */
    @Override
    JsonNode explain(Connection connection, String prelude, String positionalSql, PreparedStatementSetter parameters,
            PlanMode mode) throws SQLException {
        if (mode == Mode.CUSTOM) {
            return readPlan(connection, prelude, "EXPLAIN (FORMAT JSON) " + positionalSql, parameters);
        }
        int count = (int) positionalSql.chars().filter(c -> c == '?').count();
        execute(connection, "SET plan_cache_mode = force_generic_plan",
                "PREPARE hot_statement AS " + numbered(positionalSql));
        try {
            return readPlan(connection, prelude, "EXPLAIN (FORMAT JSON) EXECUTE hot_statement"
                    + (count == 0 ? "" : "(" + String.join(", ", Collections.nCopies(count, "NULL")) + ")"),
                    statement -> { });
        } finally {
            execute(connection, "DEALLOCATE hot_statement", "RESET plan_cache_mode");
        }
    }

    /** JDBC's ? placeholders as PREPARE's $1, $2, …; our statements have no ? in a literal. */
    private static String numbered(String positionalSql) {
        StringBuilder numbered = new StringBuilder();
        int parameter = 0;
        for (char c : positionalSql.toCharArray()) {
            if (c == '?') {
                numbered.append('$').append(++parameter);
            } else {
                numbered.append(c);
            }
        }
        return numbered.toString();
    }

    /** A Nested Loop whose inner side scans the batch's keys (the unnest, or a CTE of it) again for every row. */
    private static boolean loopsOverTheKeysForEachRow(JsonNode node) {
        return node.path("Node Type").asString("").equals("Nested Loop") && node.path("Plans").valueStream()
                .filter(child -> child.path("Parent Relationship").asString("").equals("Inner"))
                .anyMatch(inner -> Set.of("CTE Scan", "Function Scan").contains(inner.path("Node Type").asString("")));
    }

    /**
     * A Seq Scan of the table fails, but for the purge's delete of a batch of ids on the empty table: never analyzed
     * and without pages, it counts as ten pages, and reading them costs less than any ten index lookups (the generic
     * plan's guess at an array's length), whatever the statement's shape. A plan cached from there reads the table
     * whole until the cache is dropped: by an ANALYZE, or the connection's end (the pool's maximum lifetime); for the
     * bulk completions, run many times a second, record.byKeys.prelude keeps it out. A statement that reads records
     * in sequence order up to a limit (the fetches, the purge) fails when it sorts them: that reads every record that
     * matches, not the first few (record.orderedRead.prelude keeps the sort out). A statement over a batch of keys
     * fails when it matches each row against the keys one by one (a nested loop with the keys inside), which is
     * quadratic in the batch, or when it finds the fences other than by the partition table's primary key.
     */
    @Override
    List<String> violations(JsonNode plan, HotStatements.Hot statement, StatisticsState state) {
        List<String> violations = new ArrayList<>();
        String table = statement.table();
        // record.purge deletes a batch of ids: those its subquery finds through the (status, sequence_no) index
        boolean seqScanAllowed = state == State.NEVER_ANALYZED && statement.name().equals("record.purge");
        for (JsonNode node : nodes(plan).filter(node -> node.has("Node Type")).toList()) {
            String type = node.path("Node Type").asString("");
            if (table.equals(node.path("Relation Name").asString("")) && type.equals("Seq Scan") && !seqScanAllowed) {
                violations.add("reads all of " + table + " (Seq Scan)");
            }
            String index = node.path("Index Name").asString("");
            if (statement.access() != HotStatements.Access.INDEXED && index.contains(table)
                    && !index.equals("pk_" + table)) {
                violations.add("reads " + table + " through " + index + " (" + type + "), not by its primary key");
            }
        }
        if (statement.access() == HotStatements.Access.BY_KEYS && nodes(plan).anyMatch(node ->
                AbstractStatementPlanTest.PARTITION_TABLE.equals(node.path("Relation Name").asString(""))
                        && !node.path("Index Name").asString("").equals("pk_" + PARTITION_TABLE))) {
            violations.add("finds the fences other than by the partition's primary key: reads the partitions of an "
                    + "owner for each key");
        }
        if (statement.access() == HotStatements.Access.BY_KEYS && nodes(plan).anyMatch(
                PostgresStatementPlanTest::loopsOverTheKeysForEachRow)) {
            violations.add("matches each row against the batch's keys one by one (a nested loop over them): "
                    + "quadratic in the batch");
        }
        boolean readsInSequenceOrder = statement.name().startsWith("record.find")
                || statement.name().equals("record.purge");
        if (readsInSequenceOrder && nodes(plan).anyMatch(node ->
                node.path("Node Type").asString("").equals("Sort")
                        && node.path("Sort Key").toString().contains("sequence_no"))) {
            violations.add("sorts the records by sequence_no: reads every one that matches, not the first few");
        }
        boolean probesByAggregate = nodes(plan).anyMatch(node -> node.path("Index Cond").asString("")
                .contains("aggregate_id"));
        if (statement.name().contains("headOfAggregate") && !probesByAggregate) {
            violations.add("looks at a candidate's earlier records without an index probe by aggregate_id: reads "
                    + "every open record per candidate");
        }
        return violations;
    }
}
