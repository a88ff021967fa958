package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class H2ClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
