package dev.outbox.boot.handlers;

import dev.outbox.jpa.testing.TestDatabase;

class H2TypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
