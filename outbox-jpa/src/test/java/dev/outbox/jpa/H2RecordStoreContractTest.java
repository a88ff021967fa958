package dev.outbox.jpa;

import dev.outbox.jdbc.testing.TestDatabase;

class H2RecordStoreContractTest extends AbstractJpaRecordStoreContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
