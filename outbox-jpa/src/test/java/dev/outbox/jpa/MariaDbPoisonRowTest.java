package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbPoisonRowTest extends AbstractPoisonRowTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
