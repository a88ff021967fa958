package dev.outbox.jpa;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbRecordStoreContractTest extends AbstractJpaRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
