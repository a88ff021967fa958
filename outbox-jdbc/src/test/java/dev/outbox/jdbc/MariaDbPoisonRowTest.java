package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class MariaDbPoisonRowTest extends AbstractPoisonRowTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
