package dev.outbox.boot.transactions;

import dev.outbox.jpa.testing.TestDatabase;

class H2NamedOutboxTransactionContractTest extends NamedOutboxContract {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
