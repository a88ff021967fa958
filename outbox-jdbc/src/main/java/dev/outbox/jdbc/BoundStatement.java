package dev.outbox.jdbc;

import java.util.Objects;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * One statement as a store runs it: its SQL with the placeholders filled in, and the values of its named parameters.
 * The stores make these and run them; tests read the plans of the very same statements.
 */
record BoundStatement(String sql, SqlParameterSource parameters) {

    BoundStatement {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(parameters, "parameters");
    }
}
