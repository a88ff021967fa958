package dev.outbox.boot.actuate;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresBadInputTest extends AbstractBadInputTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
