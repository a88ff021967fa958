package dev.outbox.boot.handlers;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresTypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
