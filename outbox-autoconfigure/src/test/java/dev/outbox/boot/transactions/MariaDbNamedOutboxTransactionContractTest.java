package dev.outbox.boot.transactions;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbNamedOutboxTransactionContractTest extends NamedOutboxContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
