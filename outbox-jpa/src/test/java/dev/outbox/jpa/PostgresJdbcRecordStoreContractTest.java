package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresJdbcRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
