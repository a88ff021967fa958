package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class H2FencedStatusWriteTest extends AbstractFencedStatusWriteTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
