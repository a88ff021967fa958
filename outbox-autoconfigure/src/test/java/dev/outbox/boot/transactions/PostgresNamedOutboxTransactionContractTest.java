package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresNamedOutboxTransactionContractTest extends NamedOutboxContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
