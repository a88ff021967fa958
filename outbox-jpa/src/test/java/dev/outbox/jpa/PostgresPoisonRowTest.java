package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresPoisonRowTest extends AbstractPoisonRowTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
