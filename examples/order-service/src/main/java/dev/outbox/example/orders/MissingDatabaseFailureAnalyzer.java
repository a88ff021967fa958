package dev.outbox.example.orders;

import java.sql.SQLException;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.diagnostics.FailureAnalyzer;

/**
 * A start on a PostgreSQL database that does not exist (SQL state {@code 3D000}, e.g. the {@code postgres} profile's
 * {@code outbox_example} not created yet) ends with Spring Boot's short report saying how to create it, instead of a
 * 45-line stack trace. Registered in {@code META-INF/spring.factories}.
 */
final class MissingDatabaseFailureAnalyzer implements FailureAnalyzer {

    private static final String INVALID_CATALOG_NAME = "3D000";

    @Override
    public @Nullable FailureAnalysis analyze(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof SQLException sql && INVALID_CATALOG_NAME.equals(sql.getSQLState())) {
                return new FailureAnalysis("The order service's database does not exist: " + sql.getMessage() + ".",
                        "Create it once, e.g. for the postgres profile: createdb -h 127.0.0.1 -U postgres "
                                + "outbox_example (see examples/order-service/README.md), or set ORDERS_DB_URL to "
                                + "another database.",
                        sql);
            }
        }
        return null;
    }
}
