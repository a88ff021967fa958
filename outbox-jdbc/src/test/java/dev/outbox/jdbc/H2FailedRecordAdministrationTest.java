package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class H2FailedRecordAdministrationTest extends AbstractJdbcFailedRecordAdministrationTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.H2;
    }
}
