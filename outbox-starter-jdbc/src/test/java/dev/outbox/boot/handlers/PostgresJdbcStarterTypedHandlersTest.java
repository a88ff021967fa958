package dev.outbox.boot.handlers;

import dev.outbox.jdbc.testing.TestDatabase;

/** The typed-handler suite on the JDBC starter. */
class PostgresJdbcStarterTypedHandlersTest extends AbstractTypedHandlersTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.POSTGRES;
    }
}
