package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class H2JpaStarterTransactionContractTest extends JpaStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
