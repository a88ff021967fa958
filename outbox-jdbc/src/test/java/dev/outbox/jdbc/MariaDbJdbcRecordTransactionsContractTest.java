package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJdbcRecordTransactionsContractTest extends AbstractJdbcRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
