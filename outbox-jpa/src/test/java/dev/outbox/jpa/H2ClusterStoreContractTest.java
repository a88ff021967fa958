package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class H2ClusterStoreContractTest extends AbstractClusterStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
