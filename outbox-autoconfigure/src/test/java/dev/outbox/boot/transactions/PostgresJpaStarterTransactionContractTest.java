package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresJpaStarterTransactionContractTest extends JpaStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
