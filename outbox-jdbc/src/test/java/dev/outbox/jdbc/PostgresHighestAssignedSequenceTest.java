package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * What PostgreSQL's store tells of the highest sequence handed out (the fetch floor reads it): the sequences of
 * transactions not yet committed count, and an application role that may not read the identity's sequence gets no
 * answer instead of an error. The contract tests check the rest on every store.
 */
class PostgresHighestAssignedSequenceTest {

    @Test
    void aSequenceTakenByATransactionNotYetCommittedCounts() throws SQLException {
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            JdbcRecordStore store = new JdbcRecordStore(db.dataSource(), DatabaseDialect.POSTGRESQL);
            assertThat(store.highestAssignedSequence()).as("before the first record").isEmpty();

            long taken;
            try (Connection open = db.dataSource().getConnection(); Statement statement = open.createStatement()) {
                open.setAutoCommit(false);
                taken = insert(statement, "r-1");
                assertThat(store.highestAssignedSequence()).as("while its transaction is open").hasValue(taken);
                open.rollback();
            }
            assertThat(store.highestAssignedSequence()).as("a rolled-back sequence stays handed out").hasValue(taken);
        }
    }

    @Test
    void aRoleThatMayNotReadTheSequenceGetsNoAnswerAndNoError() throws SQLException {
        String role = "outbox_test_role_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES);
                Connection connection = db.dataSource().getConnection();
                Statement statement = connection.createStatement()) {
            OutboxSchemaInitializer.apply(db.dataSource());
            insert(statement, "r-1");
            statement.execute("CREATE ROLE " + role);
            try {
                statement.execute("GRANT SELECT, INSERT, UPDATE, DELETE ON outbox_record TO " + role);
                statement.execute("SET ROLE " + role);
                JdbcRecordStore store = new JdbcRecordStore(new SingleConnectionDataSource(connection, true),
                        DatabaseDialect.POSTGRESQL);

                assertThat(insert(statement, "r-2")).as("inserting needs no right on an identity's sequence")
                        .isPositive();
                assertThat(store.highestAssignedSequence()).isEmpty();
            } finally {
                statement.execute("RESET ROLE");
                statement.execute("REVOKE ALL ON outbox_record FROM " + role);
                statement.execute("DROP ROLE " + role);
            }
        }
    }

    private static long insert(Statement statement, String id) throws SQLException {
        try (ResultSet inserted = statement.executeQuery("INSERT INTO outbox_record (id, status, aggregate_id, "
                + "event_type, payload, partition_no, created_at, next_retry_at) VALUES ('" + id + "', 'NEW', 'agg', "
                + "'E', '{}', 0, now(), now()) RETURNING sequence_no")) {
            inserted.next();
            return inserted.getLong(1);
        }
    }
}
