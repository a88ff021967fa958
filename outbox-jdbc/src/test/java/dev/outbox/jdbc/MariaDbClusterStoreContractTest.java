package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
