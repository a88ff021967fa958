package dev.outbox.boot.acceptance;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbOutboxAcceptanceTest extends AbstractOutboxAcceptanceTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
