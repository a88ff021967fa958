package dev.outbox.jdbc;

import dev.outbox.jdbc.testing.TestDatabase;

class PostgresFailedRecordAdministrationTest extends AbstractJdbcFailedRecordAdministrationTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
