package dev.outbox.jpa;

import dev.outbox.jpa.testing.TestDatabase;

class MariaDbEntitySchemaTest extends AbstractEntitySchemaTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }
}
