package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class H2EntitySchemaTest extends AbstractEntitySchemaTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
