package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresJdbcRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
