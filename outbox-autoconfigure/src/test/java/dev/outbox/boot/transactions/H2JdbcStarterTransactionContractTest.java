package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JdbcStarterTransactionContractTest extends JdbcStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
