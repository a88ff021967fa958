package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The write path on plain JDBC, with {@code DataSourceTransactionManager} transactions on H2, and a business change
 * written with {@link JdbcClient} in the same transaction.
 */
class JdbcOutboxRecordRepositoryTest extends AbstractWriteRepositoryTest<JdbcOutboxFixture> {

    @Override
    protected JdbcOutboxFixture createFixture() {
        return JdbcOutboxFixture.create(TestDatabase.Kind.H2, PAYLOAD_LIMIT);
    }

    @BeforeEach
    void businessTable() {
        fixture.jdbc().execute("CREATE TABLE IF NOT EXISTS business_order (id VARCHAR(36) PRIMARY KEY)");
        fixture.jdbc().update("DELETE FROM business_order");
    }

    @Test
    void theRecordsCommitAndRollBackWithAJdbcClientWriteOnTheSameConnection() {
        JdbcClient business = JdbcClient.create(fixture.database().dataSource());
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());

        transaction.executeWithoutResult(status -> {
            business.sql("INSERT INTO business_order (id) VALUES ('kept')").update();
            fixture.repository().save(record("kept", "{}"));
        });
        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            business.sql("INSERT INTO business_order (id) VALUES ('lost')").update();
            fixture.repository().save(record("lost", "{}"));
            throw new IllegalStateException("business rule violated");
        })).hasMessage("business rule violated");

        assertThat(business.sql("SELECT id FROM business_order").query(String.class).list()).containsExactly("kept");
        assertThat(fixture.jdbc().queryForList("SELECT aggregate_id FROM " + fixture.sql().recordTable(), String.class))
                .containsExactly("kept");
    }

    @Test
    void aRecordThatFailsToInsertFailsTheCommitAndTheBusinessChangeWithIt() {
        JdbcClient business = JdbcClient.create(fixture.database().dataSource());
        TransactionTemplate transaction = new TransactionTemplate(fixture.transactionManager());
        OutboxRecord first = record("agg-1", "{}");
        fixture.repository().save(first);

        assertThatThrownBy(() -> transaction.executeWithoutResult(status -> {
            business.sql("INSERT INTO business_order (id) VALUES ('lost')").update();
            fixture.repository().save(first); // the same id again: the insert before commit fails
        })).isInstanceOf(org.springframework.dao.DataIntegrityViolationException.class);

        assertThat(business.sql("SELECT COUNT(*) FROM business_order").query(Long.class).single()).isZero();
        assertThat(fixture.jdbc().queryForObject("SELECT COUNT(*) FROM " + fixture.sql().recordTable(), Integer.class)).isEqualTo(1);
    }
}
