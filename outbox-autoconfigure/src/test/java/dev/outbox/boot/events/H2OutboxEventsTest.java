package dev.outbox.boot.events;

import dev.outbox.jpa.testing.TestDatabase;

class H2OutboxEventsTest extends AbstractOutboxEventsTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
