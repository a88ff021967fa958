package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJpaStarterTransactionContractTest extends JpaStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
