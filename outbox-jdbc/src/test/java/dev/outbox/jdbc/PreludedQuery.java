package dev.outbox.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.springframework.jdbc.core.PreparedStatementSetter;

/**
 * Runs a query as {@link JdbcRecordStore} runs its fetches: the dialect's prelude first, in the same statement and so
 * the same round trip and implicit transaction, then the query, whose rows are read. Tests explain the fetches so.
 */
final class PreludedQuery {

    private PreludedQuery() {
    }

    /** The first column of every row of {@code sql} (positional parameters) run after {@code prelude}. */
    static List<String> firstColumn(Connection connection, String prelude, String sql,
            PreparedStatementSetter parameters) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                prelude.isEmpty() ? sql : prelude + ";\n" + sql)) {
            parameters.setValues(statement);
            statement.execute();
            if (!prelude.isEmpty() && !statement.getMoreResults()) {
                throw new IllegalStateException("No rows after the prelude: " + sql);
            }
            List<String> values = new ArrayList<>();
            try (ResultSet rows = statement.getResultSet()) {
                while (rows.next()) {
                    values.add(rows.getString(1));
                }
            }
            return values;
        }
    }
}
