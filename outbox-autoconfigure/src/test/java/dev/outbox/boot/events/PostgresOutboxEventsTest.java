package dev.outbox.boot.events;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresOutboxEventsTest extends AbstractOutboxEventsTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
