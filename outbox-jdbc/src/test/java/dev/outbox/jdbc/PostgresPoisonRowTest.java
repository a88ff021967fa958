package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresPoisonRowTest extends AbstractPoisonRowTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
