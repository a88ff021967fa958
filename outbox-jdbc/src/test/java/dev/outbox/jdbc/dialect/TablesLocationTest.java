package dev.outbox.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.jdbc.testing.TestDatabase;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.DriverManagerDataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * Where the database says outbox tables are: the same through any two DataSources on one database, different in
 * another database or with another prefix or schema.
 */
class TablesLocationTest {

    private static final OutboxTables DEFAULTS = OutboxTables.defaults();

    @Test
    void twoDataSourcesOnOneInMemoryH2DatabaseFindTheSameTables() {
        String name = "location_" + UUID.randomUUID().toString().replace("-", "");
        DriverManagerDataSource first = new DriverManagerDataSource("jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1");
        DriverManagerDataSource second = new DriverManagerDataSource("jdbc:h2:mem:" + name + ";LOCK_TIMEOUT=20000");
        try {
            TablesLocation location = TablesLocation.read(first, DEFAULTS);

            assertThat(TablesLocation.read(second, DEFAULTS)).isEqualTo(location);
            assertThat(location.schema()).isEqualTo("PUBLIC");
            assertThat(TablesLocation.read(second, OutboxTables.builder().schema("public").build()))
                    .as("the connection's schema named outright").isEqualTo(location);
            assertThat(TablesLocation.read(second, OutboxTables.builder().tablePrefix("ledger_").build()))
                    .isNotEqualTo(location);
            assertThat(TablesLocation.read(second, OutboxTables.builder().schema("ledger").build()))
                    .isNotEqualTo(location);
        } finally {
            new JdbcTemplate(first).execute("SHUTDOWN");
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void anotherDatabaseHasOtherTablesAndTheMessageSaysWhere(TestDatabase.Kind kind) {
        try (TestDatabase one = TestDatabase.create(kind); TestDatabase other = TestDatabase.create(kind)) {
            TablesLocation location = TablesLocation.read(one.dataSource(), DEFAULTS);

            assertThat(TablesLocation.read(other.dataSource(), DEFAULTS)).isNotEqualTo(location);
            assertThat(TablesLocation.read(one.dataSource(), DEFAULTS)).isEqualTo(location);
            assertThat(location.toString()).startsWith("outbox_{record,instance,partition} in schema ")
                    .containsIgnoringCase(one.databaseName());
        }
    }

    @Test
    void anUnnamedInMemoryH2DatabaseIsItsConnectionsOwnAndHasNoLocation() {
        SingleConnectionDataSource unnamed = new SingleConnectionDataSource("jdbc:h2:mem:", true);
        try {
            assertThatThrownBy(() -> TablesLocation.read(unnamed, DEFAULTS)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("H2 did not tell its server_id");
        } finally {
            unnamed.destroy();
        }
    }
}
