package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class H2PoisonRowTest extends AbstractPoisonRowTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
