package dev.outbox.boot.acceptance;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestTables;

/**
 * The acceptance suite on the JDBC starter with {@code outbox.schema} and {@code outbox.table-prefix} set
 * ({@link TestTables#prefixed}): the JDBC write path's inserts and reads on those tables.
 */
class PostgresJdbcStarterConfiguredTablesAcceptanceTest extends PostgresJdbcStarterAcceptanceTest {

    @Override
    protected OutboxTables tables(TestDatabase database) {
        return TestTables.prefixed(database);
    }
}
