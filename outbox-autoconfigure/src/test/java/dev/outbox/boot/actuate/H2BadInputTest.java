package dev.outbox.boot.actuate;

import dev.outbox.jdbc.testing.TestDatabase;

class H2BadInputTest extends AbstractBadInputTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
