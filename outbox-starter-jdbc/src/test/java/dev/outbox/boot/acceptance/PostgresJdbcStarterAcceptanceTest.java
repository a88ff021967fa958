package dev.outbox.boot.acceptance;

import dev.outbox.boot.jdbc.JdbcAcceptanceApplication;

/**
 * The acceptance suite on the JDBC starter and PostgreSQL, with its LISTEN/NOTIFY test: the notification is sent from
 * the JDBC write path's commit.
 */
class PostgresJdbcStarterAcceptanceTest extends PostgresOutboxAcceptanceTest {

    @Override
    protected Class<?> applicationClass() {
        return JdbcAcceptanceApplication.class;
    }
}
