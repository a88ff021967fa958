package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestTables;

/** The contract on tables named with reserved words, in a schema of their own ({@link TestTables#reservedWords}). */
class PostgresReservedWordTablesRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }

    @Override
    protected OutboxTables tables(TestDatabase database) {
        return TestTables.reservedWords(database);
    }
}
