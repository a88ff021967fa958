package dev.outbox.benchmark;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The transactional benchmark's projection check finds each kind of fault: on a database of its own, six COMPLETED
 * records of two aggregates and their correct projection pass; each test then spoils it one way.
 */
class ProjectionCheckTest {

    private static final int RECORDS = 6;

    private BenchDatabase database;
    private JdbcTemplate jdbc;

    @BeforeEach
    void correctProjection() {
        String url = env("OUTBOX_TEST_POSTGRES_URL", BenchmarkOptions.DEFAULT_URL);
        String user = env("OUTBOX_TEST_POSTGRES_USER", "postgres");
        String password = env("OUTBOX_TEST_POSTGRES_PASSWORD", "");
        requireDatabase(url, user, password);
        database = BenchDatabase.create(url, user, password);
        database.initialize();
        jdbc = database.jdbc();
        for (String statement : ProjectionHandlers.createTables()) {
            jdbc.execute(statement);
        }
        for (int n = 0; n < RECORDS; n++) {
            String aggregate = "order-" + n % 2;
            long sequence = n + 1; // one sequence over all aggregates, as the outbox numbers them
            jdbc.update("INSERT INTO outbox_record (id, status, aggregate_id, event_type, payload, partition_no,"
                    + " created_at, retry_count, next_retry_at, sequence_no)"
                    + " VALUES (?, 'COMPLETED', ?, 'ProjectedOrder', '{}', 0, now(), 0, now(), ?)",
                    "record-" + n, aggregate, sequence);
            jdbc.update("INSERT INTO " + ProjectionHandlers.ROWS_TABLE + " (record_id, aggregate_id, sequence_no)"
                    + " VALUES (?, ?, ?)", "record-" + n, aggregate, sequence);
        }
        jdbc.update("INSERT INTO " + ProjectionHandlers.COUNTERS_TABLE + " VALUES ('order-0', 3), ('order-1', 3)");
    }

    @AfterEach
    void dropDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @Test
    void aCorrectProjectionPasses() {
        Map<String, Object> checks = ProjectionCheck.run(jdbc, RECORDS);
        assertThat(checks).containsEntry("rows", 6L).containsEntry("aggregates", 2L).containsEntry("passed", true);
    }

    @Test
    void aRowTwiceIsADuplicate() {
        spoiled("duplicates", jdbc -> jdbc.update("INSERT INTO " + ProjectionHandlers.ROWS_TABLE
                + " (record_id, aggregate_id, sequence_no) VALUES ('record-4', 'order-0', 5)"));
    }

    @Test
    void aRecordWithoutItsRowIsMissing() {
        spoiled("missing", jdbc -> jdbc.update("DELETE FROM " + ProjectionHandlers.ROWS_TABLE
                + " WHERE record_id = 'record-4'"));
    }

    @Test
    void rowsInsertedAgainstTheirAggregatesOrderAreAViolation() {
        spoiled("orderViolations", jdbc -> {
            jdbc.update("DELETE FROM " + ProjectionHandlers.ROWS_TABLE + " WHERE record_id = 'record-2'");
            jdbc.update("INSERT INTO " + ProjectionHandlers.ROWS_TABLE + " (record_id, aggregate_id, sequence_no)"
                    + " VALUES ('record-2', 'order-0', 3)");
        });
    }

    @Test
    void aCounterOffByOneIsWrong() {
        spoiled("wrongCounters", jdbc -> jdbc.update("UPDATE " + ProjectionHandlers.COUNTERS_TABLE
                + " SET handled = 4 WHERE aggregate_id = 'order-1'"));
    }

    @Test
    void aRowOfAnotherSequenceIsWrong() {
        spoiled("wrongAggregateOrSequence", jdbc -> jdbc.update("UPDATE " + ProjectionHandlers.ROWS_TABLE
                + " SET sequence_no = 9 WHERE record_id = 'record-5'"));
    }

    private void spoiled(String figure, Consumer<JdbcTemplate> spoil) {
        spoil.accept(jdbc);
        Map<String, Object> checks = ProjectionCheck.run(jdbc, RECORDS);
        assertThat((Long) checks.get(figure)).as(figure + " in " + checks).isPositive();
        assertThat(checks).containsEntry("passed", false);
    }

    private static void requireDatabase(String url, String user, String password) {
        try (Connection connection = BenchDatabase.connect(url, user, password)) {
            if (connection.isValid(3)) {
                return;
            }
        } catch (SQLException e) {
            if ("true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_DB"))) {
                throw new IllegalStateException("No PostgreSQL at " + url, e);
            }
        }
        Assumptions.abort("No PostgreSQL at " + url + " as " + user);
    }

    private static String env(String name, String fallback) {
        String value = System.getenv(name);
        return value == null || value.isBlank() ? fallback : value.trim();
    }
}
