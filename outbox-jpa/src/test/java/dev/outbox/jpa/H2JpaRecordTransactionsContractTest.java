package dev.outbox.jpa;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JpaRecordTransactionsContractTest extends AbstractJpaRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
