package dev.outbox.jdbc;

import java.util.Objects;
import org.springframework.jdbc.core.namedparam.SqlParameterSource;

/**
 * One statement as a store runs it: its SQL with the placeholders filled in, and the values of its named parameters.
 * The stores make these and run them; tests read the plans of the very same statements.
 *
 * <p>{@code prelude} is SQL without parameters sent ahead of the statement in the same round trip, and so in the same
 * implicit transaction (PostgreSQL: a planner setting local to it); empty when there is none.
 */
record BoundStatement(String sql, SqlParameterSource parameters, String prelude) {

    BoundStatement {
        Objects.requireNonNull(sql, "sql");
        Objects.requireNonNull(parameters, "parameters");
        Objects.requireNonNull(prelude, "prelude");
    }

    BoundStatement(String sql, SqlParameterSource parameters) {
        this(sql, parameters, "");
    }
}
