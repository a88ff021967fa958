package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
