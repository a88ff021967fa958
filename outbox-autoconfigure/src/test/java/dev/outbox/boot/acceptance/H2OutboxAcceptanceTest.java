package dev.outbox.boot.acceptance;

import dev.outbox.jdbc.testing.TestDatabase;

class H2OutboxAcceptanceTest extends AbstractOutboxAcceptanceTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
