package dev.outbox.jpa;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresJpaRecordTransactionsContractTest extends AbstractJpaRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
