package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.PreparedStatementSetter;
import tools.jackson.databind.JsonNode;

/**
 * {@link AbstractStatementPlanTest} on MariaDB. InnoDB keeps its statistics in mysql.innodb_table_stats and
 * mysql.innodb_index_stats; deleted there and the table flushed, the optimizer has none until it gathers them again.
 * Engine-independent statistics (mysql.table_stats and the like) exist only after ANALYZE … PERSISTENT, which the
 * outbox never runs; they are deleted too.
 */
class MariaDbStatementPlanTest extends AbstractStatementPlanTest {

    /** The application's table of records: ids as the outbox makes them, 10,000 aggregates round-robin. */
    private static String insertRecords(int first, int last, String status) {
        return "INSERT INTO " + RECORD_TABLE + " (id, status, aggregate_id, event_type, payload, partition_no, "
                + "created_at, completed_at, next_retry_at) SELECT UUID(), '" + status + "', "
                + "CONCAT('order-', seq % 10000), 'OrderPlaced', "
                + "CONCAT('{\"orderId\":', seq, ',\"amount\":\"99.90\"}'), "
                + "(seq % 10000) % 256, UTC_TIMESTAMP(6), " + ("NEW".equals(status) ? "NULL" : "UTC_TIMESTAMP(6)")
                + ", UTC_TIMESTAMP(6) FROM seq_" + first + "_to_" + last;
    }

    static void forgetStatistics(Connection connection) throws SQLException {
        String ofThisDatabase = " WHERE db_name = DATABASE()";
        execute(connection, "DELETE FROM mysql.innodb_table_stats WHERE database_name = DATABASE()",
                "DELETE FROM mysql.innodb_index_stats WHERE database_name = DATABASE()",
                "DELETE FROM mysql.table_stats" + ofThisDatabase, "DELETE FROM mysql.column_stats" + ofThisDatabase,
                "DELETE FROM mysql.index_stats" + ofThisDatabase, "FLUSH TABLE " + RECORD_TABLE);
    }

    enum State implements StatisticsState {
        NO_STATISTICS("20,000 records (1,000 NEW), statistics deleted") {
            @Override
            public void prepare(Connection connection) throws SQLException {
                execute(connection, insertRecords(1, 19_000, "COMPLETED"), insertRecords(19_001, 20_000, "NEW"));
                forgetStatistics(connection);
            }
        },
        BULK_LOADED("150,000 NEW records loaded, statistics deleted") {
            @Override
            public void prepare(Connection connection) throws SQLException {
                execute(connection, insertRecords(1, 150_000, "NEW"));
                forgetStatistics(connection);
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

    /** One plan: the driver sends the values in the statement's text. */
    enum Mode implements PlanMode {
        TEXT;

        @Override
        public String description() {
            return "";
        }
    }

    @Override
    TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    String databaseName() {
        return "MariaDB";
    }

    @Override
    List<State> states() {
        return List.of(State.values());
    }

    @Override
    List<Mode> planModes() {
        return List.of(Mode.values());
    }

    @Override
    JsonNode explain(Connection connection, String prelude, String positionalSql, PreparedStatementSetter parameters,
            PlanMode mode) throws SQLException {
        return readPlan(connection, prelude, "EXPLAIN FORMAT=JSON " + positionalSql, parameters);
    }

    /** A table of the plan is an object with table_name: the table's name or the alias the statement gives it. */
    @Override
    List<String> violations(JsonNode plan, HotStatements.Hot statement, StatisticsState state) {
        List<String> violations = new ArrayList<>();
        for (JsonNode table : nodes(plan).filter(node -> node.has("table_name")).toList()) {
            String name = table.path("table_name").asString("");
            if (!name.equals(statement.table()) && !statement.aliases().contains(name)) {
                continue;
            }
            String access = table.path("access_type").asString("");
            if (access.equals("ALL")) {
                violations.add("reads all of " + statement.table() + " as " + name + " (access_type ALL)");
            }
            String key = table.path("key").asString("");
            if (statement.access() != HotStatements.Access.INDEXED && !key.equals("PRIMARY")) {
                violations.add("reads " + statement.table() + " as " + name + " through " + key + " (" + access
                        + "), not by its primary key");
            }
        }
        boolean readsInSequenceOrder = statement.name().startsWith("record.find")
                || statement.name().equals("record.purge");
        if (readsInSequenceOrder && nodes(plan).anyMatch(node -> node.has("filesort")
                || node.path("using_filesort").asBoolean(false))) {
            violations.add("sorts the records (filesort): reads every one that matches, not the first few");
        }
        return violations;
    }
}
