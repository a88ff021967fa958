package dev.outbox.boot.transactions;

import dev.outbox.jpa.testing.TestDatabase;

class H2JdbcStarterTransactionContractTest extends JdbcStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
