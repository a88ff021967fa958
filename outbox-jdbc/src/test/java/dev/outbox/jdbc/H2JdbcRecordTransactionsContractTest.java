package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JdbcRecordTransactionsContractTest extends AbstractJdbcRecordTransactionsContractTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
