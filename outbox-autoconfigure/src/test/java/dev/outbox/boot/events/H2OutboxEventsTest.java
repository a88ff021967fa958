package dev.outbox.boot.events;

import dev.outbox.jdbc.testing.TestDatabase;

class H2OutboxEventsTest extends AbstractOutboxEventsTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
