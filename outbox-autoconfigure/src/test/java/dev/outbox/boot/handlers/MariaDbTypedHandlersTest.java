package dev.outbox.boot.handlers;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbTypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
