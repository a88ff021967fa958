package dev.outbox.boot.acceptance;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestTables;

/**
 * The PostgreSQL acceptance suite, LISTEN/NOTIFY included (on the channel of these tables), with {@code outbox.schema}
 * and {@code outbox.table-prefix} set ({@link TestTables#prefixed}).
 */
class PostgresConfiguredTablesAcceptanceTest extends PostgresOutboxAcceptanceTest {

    @Override
    protected OutboxTables tables(TestDatabase database) {
        return TestTables.prefixed(database);
    }
}
