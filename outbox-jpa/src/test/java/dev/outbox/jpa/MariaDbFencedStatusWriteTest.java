package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbFencedStatusWriteTest extends AbstractFencedStatusWriteTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
