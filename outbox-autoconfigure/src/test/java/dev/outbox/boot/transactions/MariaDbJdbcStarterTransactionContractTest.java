package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbJdbcStarterTransactionContractTest extends JdbcStarterContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
