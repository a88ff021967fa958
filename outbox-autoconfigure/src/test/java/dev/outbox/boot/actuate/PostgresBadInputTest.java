package dev.outbox.boot.actuate;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresBadInputTest extends AbstractBadInputTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
