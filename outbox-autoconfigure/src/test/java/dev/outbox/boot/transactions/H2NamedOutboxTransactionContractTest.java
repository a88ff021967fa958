package dev.outbox.boot.transactions;

import dev.outbox.jdbc.testing.TestDatabase;

class H2NamedOutboxTransactionContractTest extends NamedOutboxContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
