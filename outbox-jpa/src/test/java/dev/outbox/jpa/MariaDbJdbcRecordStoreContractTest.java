package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbJdbcRecordStoreContractTest extends AbstractJdbcRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
