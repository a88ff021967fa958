package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresEntitySchemaTest extends AbstractEntitySchemaTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
