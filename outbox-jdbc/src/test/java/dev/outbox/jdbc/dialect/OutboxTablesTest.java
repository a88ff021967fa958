package dev.outbox.jdbc.dialect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class OutboxTablesTest {

    @Test
    void theDefaultsAreTheOutboxTablesOfTheDefaultSchemaLeftUnquoted() {
        OutboxTables defaults = OutboxTables.defaults();

        assertThat(defaults.isDefault()).isTrue();
        assertThat(defaults.schema()).isEmpty();
        assertThat(defaults.recordTable()).isEqualTo("outbox_record");
        assertThat(defaults.notificationChannel()).isEqualTo("outbox_record");
        assertThat(OutboxTables.builder().schema("").tablePrefix("outbox_").build()).isEqualTo(defaults);
        for (DatabaseDialect dialect : DatabaseDialect.values()) {
            SqlStatements sql = dialect.statements(defaults, true);
            assertThat(sql).isSameAs(dialect.statements());
            assertThat(sql.recordTable()).isEqualTo("outbox_record");
            assertThat(sql.get("partition.findAll")).contains("FROM outbox_partition ");
        }
    }

    @Test
    void configuredNamesAreQuotedAndQualifiedPerDatabase() {
        OutboxTables tables = OutboxTables.builder().schema("user").tablePrefix("").build();

        assertThat(DatabaseDialect.POSTGRESQL.statements(tables, false).get("instance.remove"))
                .isEqualTo("DELETE FROM \"user\".\"instance\" WHERE instance_id = :instanceId");
        assertThat(DatabaseDialect.H2.statements(tables, true).recordTable()).isEqualTo("\"USER\".\"RECORD\"");
        assertThat(DatabaseDialect.H2.statements(tables, false).recordTable()).isEqualTo("\"user\".\"record\"");
        assertThat(DatabaseDialect.MARIADB.statements(tables, false).partitionTable())
                .isEqualTo("`user`.`partition`");
        assertThat(tables.notificationChannel()).isEqualTo("user.record");
    }

    @Test
    void everyStatementOfEveryDatabaseNamesOnlyTheConfiguredTables() {
        OutboxTables tables = OutboxTables.builder().schema("s").tablePrefix("p_").build();
        for (DatabaseDialect dialect : DatabaseDialect.values()) {
            SqlStatements sql = dialect.statements(tables, false);
            for (String key : new String[] {"record.insert", "record.findDue.headOfAggregate", "record.fence",
                "record.purge", "admin.retryAllFailed", "instance.findLive", "partition.claim", "clock.now"}) {
                assertThat(sql.get(key)).as("%s on %s", key, dialect).doesNotContain("outbox_", "Table}");
            }
            assertThat(sql.get("partition.claim")).contains("p_partition", "p_instance");
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"x; DROP TABLE outbox_record; --", "Outbox_", "_outbox", "1outbox", "out box",
        "outbox\"", "outbox`", "outbox.", "outbox-", "ouтbox", "outbox\n"})
    void aPrefixThatIsNotAPlainIdentifierIsRefusedNamingTheProperty(String prefix) {
        assertThatThrownBy(() -> OutboxTables.builder().tablePrefix(prefix))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("outbox.table-prefix must be lower-case ASCII letters, digits and underscores")
                .hasMessageNotContaining("\n");
    }

    @Test
    void namesLongerThanTheirLimitAreRefusedNamingTheLimit() {
        assertThatThrownBy(() -> OutboxTables.builder().tablePrefix("p".repeat(25)))
                .hasMessage("outbox.table-prefix must be at most 24 characters but was 25 ('" + "p".repeat(25) + "')");
        assertThatThrownBy(() -> OutboxTables.builder().schema("s".repeat(33)))
                .hasMessageStartingWith("outbox.schema must be at most 32 characters but was 33");
        assertThat(OutboxTables.builder().schema("s".repeat(32)).tablePrefix("p".repeat(24)).build()
                .notificationChannel()).hasSize(63);
    }
}
