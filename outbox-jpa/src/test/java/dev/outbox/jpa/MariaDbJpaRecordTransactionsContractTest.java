package dev.outbox.jpa;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJpaRecordTransactionsContractTest extends AbstractJpaRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
