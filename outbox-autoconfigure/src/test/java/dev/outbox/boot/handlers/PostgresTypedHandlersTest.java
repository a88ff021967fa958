package dev.outbox.boot.handlers;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresTypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
