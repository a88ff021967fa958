package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbRecordStoreContractTest extends AbstractJpaRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
