package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SchemaCheck;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestDatabase.Kind;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 29: a configured schema that does not exist stops the changelog before Liquibase runs, in one line that names
 * the property and the value (it failed after some 200 lines of Liquibase exceptions that named neither), and leaves
 * no table behind.
 */
class SchemaCheckTest {

    private static final OutboxTables IN_MISSING_SCHEMA = OutboxTables.builder().properties("outbox.outboxes.billing")
            .schema("nosuch").tablePrefix("billing_").build();

    @ParameterizedTest
    @EnumSource(Kind.class)
    void aMissingSchemaStopsTheChangelogInOneLineNamingThePropertyAndLeavesNoTable(Kind kind) {
        try (TestDatabase database = TestDatabase.create(kind)) {
            assertThatThrownBy(() -> OutboxSchemaInitializer.apply(database.dataSource(), IN_MISSING_SCHEMA))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessage(missingSchemaMessage(database))
                    .hasNoCause();
            assertThat(database.tables()).isEmpty();
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void anExistingSchemaPassesInTheCaseTheDatabaseKeeps(Kind kind) {
        try (TestDatabase database = TestDatabase.create(kind)) {
            String schema = database.createSchema("billing");
            OutboxTables tables = OutboxTables.builder().schema(schema).build();

            assertThatCode(() -> SchemaCheck.requireSchema(database.dataSource(), tables)).doesNotThrowAnyException();
            assertThatCode(() -> SchemaCheck.requireSchema(database.dataSource(), OutboxTables.defaults()))
                    .doesNotThrowAnyException();
        }
    }

    private static String missingSchemaMessage(TestDatabase database) {
        String where = switch (database.kind()) {
            case POSTGRES -> "which does not exist in database " + database.databaseName() + " on PostgreSQL";
            case H2 -> "which does not exist in database " + database.databaseName().toUpperCase(Locale.ROOT)
                    + " on H2";
            case MARIADB -> "which is no database of the MariaDB server (a schema there is a database)";
        };
        return "outbox.outboxes.billing.schema is 'nosuch', " + where
                + ": create it first (the outbox does not create schemas)";
    }
}
