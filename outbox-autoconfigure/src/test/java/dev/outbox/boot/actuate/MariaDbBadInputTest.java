package dev.outbox.boot.actuate;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbBadInputTest extends AbstractBadInputTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
