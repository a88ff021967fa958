package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJdbcRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
