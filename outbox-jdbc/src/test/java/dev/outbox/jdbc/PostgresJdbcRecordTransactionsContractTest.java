package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.RecordTransactions;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;

class PostgresJdbcRecordTransactionsContractTest extends AbstractJdbcRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }

    /**
     * With an idle limit, a session that idles inside its transaction longer (its instance frozen mid-transaction) is
     * ended by the server: the row locks its handler took go then, not when the instance wakes, and its writes are
     * rolled back. Without the limit, the other session below waits for the lock until its own timeout.
     */
    @Test
    void aSessionIdleInItsTransactionPastTheLimitIsEndedAndLetsGoOfItsLocks() {
        RecordTransactions limited = stores().recordTransactions(fixture().transactionManager(),
                Duration.ofMillis(500));
        assertThat(limited.toString()).contains("idle in a transaction at most 500 ms");
        JdbcTemplate jdbc = fixture().jdbc();
        jdbc.update("INSERT INTO test_shipment (id, destination) VALUES ('locked', 'before')");
        JdbcTemplate otherSession = new JdbcTemplate(fixture().database().dataSource());
        otherSession.setQueryTimeout(20);
        ExecutorService other = Executors.newSingleThreadExecutor();
        try {
            assertThatThrownBy(() -> limited.inTransaction(() -> {
                jdbc.update("UPDATE test_shipment SET destination = 'held' WHERE id = 'locked'");
                jdbc.update("INSERT INTO test_shipment (id, destination) VALUES ('written', 'held')");
                // This session now idles, as a frozen instance's would, while another one wants the row.
                Future<Integer> taken = other.submit(() -> otherSession.update(
                        "UPDATE test_shipment SET destination = 'taken' WHERE id = 'locked'"));
                try {
                    assertThat(taken.get(30, TimeUnit.SECONDS)).as("rows the other session updated").isEqualTo(1);
                } catch (Exception e) {
                    throw new AssertionError("the other session did not get the row", e);
                }
                jdbc.queryForObject("SELECT 1", Integer.class); // on the session the server has ended
            })).as("the transaction of the ended session").isInstanceOf(RuntimeException.class)
                    .isNotInstanceOf(AssertionError.class);
        } finally {
            other.shutdownNow();
        }
        assertThat(jdbc.queryForObject("SELECT destination FROM test_shipment WHERE id = 'locked'", String.class))
                .isEqualTo("taken");
        assertThat(jdbc.queryForObject("SELECT COUNT(*) FROM test_shipment WHERE id = 'written'", Integer.class))
                .as("the ended transaction's insert").isZero();
    }
}
