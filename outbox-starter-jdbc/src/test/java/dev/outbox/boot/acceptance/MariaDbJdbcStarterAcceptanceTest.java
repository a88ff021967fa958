package dev.outbox.boot.acceptance;

import dev.outbox.boot.jdbc.JdbcAcceptanceApplication;
import dev.outbox.jdbc.testing.TestDatabase;

/** The acceptance suite on the JDBC starter: no JPA on the class path, business writes with JdbcClient. */
class MariaDbJdbcStarterAcceptanceTest extends AbstractOutboxAcceptanceTest {

    @Override
    protected TestDatabase.Kind databaseKind() {
        return TestDatabase.Kind.MARIADB;
    }

    @Override
    protected Class<?> applicationClass() {
        return JdbcAcceptanceApplication.class;
    }
}
