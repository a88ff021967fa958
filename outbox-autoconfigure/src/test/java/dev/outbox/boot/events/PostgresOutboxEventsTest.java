package dev.outbox.boot.events;

import dev.outbox.jpa.testing.TestDatabase;

class PostgresOutboxEventsTest extends AbstractOutboxEventsTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
