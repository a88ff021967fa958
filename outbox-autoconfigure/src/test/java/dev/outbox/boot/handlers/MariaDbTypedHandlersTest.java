package dev.outbox.boot.handlers;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbTypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
