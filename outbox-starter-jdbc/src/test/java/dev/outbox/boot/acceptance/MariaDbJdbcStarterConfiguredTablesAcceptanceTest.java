package dev.outbox.boot.acceptance;

import dev.outbox.jpa.dialect.OutboxTables;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.jpa.testing.TestTables;

/**
 * The acceptance suite on the JDBC starter with {@code outbox.schema} and {@code outbox.table-prefix} set
 * ({@link TestTables#prefixed}): the JDBC write path's inserts and reads on those tables.
 */
class MariaDbJdbcStarterConfiguredTablesAcceptanceTest extends MariaDbJdbcStarterAcceptanceTest {

    @Override
    protected OutboxTables tables(TestDatabase database) {
        return TestTables.prefixed(database);
    }
}
