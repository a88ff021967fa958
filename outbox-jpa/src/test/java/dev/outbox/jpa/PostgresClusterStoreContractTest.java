package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
