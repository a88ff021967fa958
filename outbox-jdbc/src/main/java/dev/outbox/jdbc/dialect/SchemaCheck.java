package dev.outbox.jdbc.dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Checks that the schema the outbox tables are configured in ({@code outbox.schema}) exists, before any changelog or
 * statement needs it. The outbox does not create schemas, and a missing one otherwise fails deep inside Liquibase
 * with a long stack that never names the property. The SQL is the dialect's {@value #STATEMENT} statement.
 */
public final class SchemaCheck {

    /** The dialect's statement that takes the schema name and reads {@code database_name} and {@code schema_exists}. */
    static final String STATEMENT = "schema.exists";

    private SchemaCheck() {
    }

    /**
     * Fails unless the schema of {@code tables} exists in the database behind {@code dataSource}; tables in the
     * connection's own schema need no check, and no connection is taken for them.
     *
     * @throws IllegalStateException when the schema does not exist, with one line naming the property
     *     ({@link OutboxTables#schemaProperty()}), the value and the database; or when the database cannot be asked
     */
    public static void requireSchema(DataSource dataSource, OutboxTables tables) {
        String schema = tables.schema().orElse(null);
        if (schema == null) {
            return;
        }
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            DatabaseDialect dialect = DatabaseDialect.fromProductName(metaData.getDatabaseProductName());
            // the name as the database stores it, as DatabaseDialect#statements quotes it
            String stored = metaData.storesUpperCaseIdentifiers() ? schema.toUpperCase(Locale.ROOT) : schema;
            try (PreparedStatement statement = connection.prepareStatement(dialect.statements().get(STATEMENT))) {
                statement.setString(1, stored);
                try (ResultSet row = statement.executeQuery()) {
                    boolean answered = row.next();
                    if (answered && row.getBoolean("schema_exists")) {
                        return;
                    }
                    String database = answered ? Objects.toString(row.getString("database_name"), "") : "";
                    throw new IllegalStateException(missing(tables, schema, database, dialect));
                }
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Outbox: cannot check that " + tables.schemaProperty() + " '" + schema
                    + "' exists: " + e.getMessage(), e);
        }
    }

    private static String missing(OutboxTables tables, String schema, String database, DatabaseDialect dialect) {
        // on MariaDB and MySQL a schema is a database of the server: there is no database above it to name
        String where = database.isEmpty()
                ? "which is no database of the " + dialect.productName() + " server (a schema there is a database)"
                : "which does not exist in database " + database + " on " + dialect.productName();
        return tables.schemaProperty() + " is '" + schema + "', " + where
                + ": create it first (the outbox does not create schemas)";
    }
}
