package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * Removing stale instances never waits for a row another transaction holds: an instance frozen inside its heartbeat's
 * transaction (SIGSTOP between the UPDATE and the commit) keeps its row locked, and a removal waiting for it would
 * stop the rebalancing of every other instance until it woke up.
 */
class PostgresStaleInstanceRemovalTest {

    private static final Duration STALE_TIMEOUT = Duration.ofSeconds(4);
    /** Far longer than the removal takes; the removal before this change waited until the holder let go. */
    private static final Duration PATIENCE = Duration.ofSeconds(20);

    @Test
    void aStaleRowHeldByAFrozenTransactionIsSkippedAndRemovedOnceItIsLetGo() throws SQLException {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            JdbcInstanceStore instances = new JdbcInstanceStore(db.dataSource(), DatabaseDialect.POSTGRESQL);
            instances.register("frozen", "127.0.0.1", 0);
            instances.register("gone", "127.0.0.1", 0);
            instances.register("live", "127.0.0.1", 0);
            try (Connection admin = db.dataSource().getConnection(); Statement statement = admin.createStatement()) {
                statement.executeUpdate("UPDATE outbox_instance SET last_heartbeat = CURRENT_TIMESTAMP - INTERVAL "
                        + "'1 minute' WHERE instance_id IN ('frozen', 'gone')");
            }

            try (Connection frozen = db.dataSource().getConnection();
                    Statement heartbeat = frozen.createStatement()) {
                frozen.setAutoCommit(false);
                heartbeat.executeUpdate("UPDATE outbox_instance SET updated_at = CURRENT_TIMESTAMP"
                        + " WHERE instance_id = 'frozen'"); // its heartbeat's transaction, never committed

                int removed = assertTimeoutPreemptively(PATIENCE, () -> instances.removeStale(STALE_TIMEOUT));
                assertThat(removed).as("the stale row nobody holds").isEqualTo(1);
                frozen.rollback();
            }

            assertThat(instances.removeStale(STALE_TIMEOUT)).as("the frozen one's, once let go").isEqualTo(1);
            assertThat(instances.findLive(STALE_TIMEOUT)).extracting(instance -> instance.instanceId())
                    .containsExactly("live");
        }
    }
}
