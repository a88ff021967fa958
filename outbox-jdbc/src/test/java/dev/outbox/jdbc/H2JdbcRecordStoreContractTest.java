package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JdbcRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
