package dev.outbox.boot.acceptance;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestTables;

/**
 * The acceptance suite with {@code outbox.schema} and {@code outbox.table-prefix} set ({@link TestTables#prefixed}).
 */
class MariaDbConfiguredTablesAcceptanceTest extends AbstractOutboxAcceptanceTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    protected OutboxTables tables(TestDatabase database) {
        return TestTables.prefixed(database);
    }
}
