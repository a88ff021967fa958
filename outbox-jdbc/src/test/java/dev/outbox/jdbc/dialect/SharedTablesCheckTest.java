package dev.outbox.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.jdbc.dialect.SharedTablesCheck.Claim;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Two outboxes on the same tables are refused, whichever DataSources reach them; other tables are not. The databases
 * of every kind are covered end to end by {@code SameTablesThroughTwoPoolsTest} and
 * {@code SettingsCheckedBeforeAnyTableTest} in the starter.
 */
class SharedTablesCheckTest {

    private static final OutboxTables DEFAULTS = OutboxTables.defaults();

    @Test
    void twoDataSourcesOnTheSameTablesAreRefusedNamingBothOutboxesAndTheTables() {
        String name = "shared_" + UUID.randomUUID().toString().replace("-", "");
        DataSource first = new DriverManagerDataSource("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        DataSource second = new DriverManagerDataSource("jdbc:h2:mem:" + name + ";LOCK_TIMEOUT=20000");
        try {
            assertThatThrownBy(() -> SharedTablesCheck.requireDistinct(List.of(new Claim("orders", first, DEFAULTS),
                    new Claim("billing", second, DEFAULTS))))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("billing uses the tables of orders: outbox_{record,instance,partition} "
                            + "in schema PUBLIC")
                    .hasMessageEndingWith("; give it another table-prefix or schema");
            assertThatCode(() -> SharedTablesCheck.requireDistinct(List.of(new Claim("orders", first, DEFAULTS),
                    new Claim("billing", second, OutboxTables.builder().tablePrefix("billing_").build()))))
                    .doesNotThrowAnyException();
        } finally {
            new JdbcTemplate(first).execute("SHUTDOWN");
        }
    }

    @Test
    void withoutALocationTheSameDataSourceObjectAndTablesAreRefused() {
        // an unnamed in-memory H2 database cannot tell where it is
        SingleConnectionDataSource unnamed = new SingleConnectionDataSource("jdbc:h2:mem:", true);
        SingleConnectionDataSource another = new SingleConnectionDataSource("jdbc:h2:mem:", true);
        try {
            assertThatThrownBy(() -> SharedTablesCheck.requireDistinct(List.of(new Claim("orders", unnamed, DEFAULTS),
                    new Claim("billing", unnamed, DEFAULTS))))
                    .hasMessage("billing uses the tables of orders: " + DEFAULTS + " on the same DataSource; give it "
                            + "another table-prefix or schema");
            assertThatCode(() -> SharedTablesCheck.requireDistinct(List.of(new Claim("orders", unnamed, DEFAULTS),
                    new Claim("billing", another, DEFAULTS))))
                    .as("another DataSource object").doesNotThrowAnyException();
        } finally {
            unnamed.destroy();
            another.destroy();
        }
    }
}
