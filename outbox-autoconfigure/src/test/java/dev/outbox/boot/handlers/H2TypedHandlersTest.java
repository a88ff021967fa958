package dev.outbox.boot.handlers;

import dev.outbox.jdbc.testing.TestDatabase;

class H2TypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
