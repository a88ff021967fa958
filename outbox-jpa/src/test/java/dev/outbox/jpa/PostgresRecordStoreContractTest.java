package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresRecordStoreContractTest extends AbstractJpaRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
