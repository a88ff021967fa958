package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
