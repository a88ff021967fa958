package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresFencedStatusWriteTest extends AbstractFencedStatusWriteTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
