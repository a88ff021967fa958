package dev.outbox.jdbc.dialect;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * Where a set of outbox tables is, as the database itself tells: its server, the database on that server, the schema
 * and the table prefix. Two DataSources whose locations are equal reach the same tables, whatever their URLs (a host
 * name or an address), users or pool settings. Read by {@link #read}; immutable.
 *
 * @param server what identifies the server (on PostgreSQL its system identifier and start, on MariaDB its
 *     {@code server_uid}, on H2 the database's path or {@code mem} for this JVM's in-memory databases)
 * @param database the database on the server whose schemas hold the tables; empty where a schema is a database
 *     (MariaDB, MySQL)
 * @param schema the schema of the tables: the configured one as the database stores its name, else the one the
 *     connection resolves unqualified names to
 * @param tablePrefix the prefix of the three table names
 */
public record TablesLocation(String server, String database, String schema, String tablePrefix) {

    /** The dialect's statement that reads {@code server_id}, {@code database_name} and {@code schema_name}. */
    static final String STATEMENT = "database.location";

    public TablesLocation {
        Objects.requireNonNull(server, "server");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(tablePrefix, "tablePrefix");
    }

    /**
     * Asks the database behind {@code dataSource} where {@code tables} are, on one connection of it.
     *
     * @throws IllegalStateException when the database cannot tell (the statement fails, for instance for lack of a
     *     privilege, or it returns no server), with the reason as its message
     */
    public static TablesLocation read(DataSource dataSource, OutboxTables tables) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            DatabaseDialect dialect = DatabaseDialect.fromProductName(metaData.getDatabaseProductName());
            String sql = dialect.statements().find(STATEMENT).orElseThrow(() -> new IllegalStateException(
                    dialect + " has no " + STATEMENT + " statement"));
            try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
                if (!row.next()) {
                    throw new IllegalStateException(dialect + " returned no row for " + STATEMENT);
                }
                String server = required(row, "server_id", dialect);
                String database = required(row, "database_name", dialect);
                // a configured schema as DatabaseDialect#statements names it: quoted, in the case the database
                // keeps unquoted names in
                String configured = tables.schema().orElse(null);
                String schema = configured == null ? row.getString("schema_name")
                        : metaData.storesUpperCaseIdentifiers() ? configured.toUpperCase(Locale.ROOT) : configured;
                if (schema == null) {
                    throw new IllegalStateException("the connection has no current schema (" + dialect + ")");
                }
                return new TablesLocation(server, database, schema, tables.tablePrefix());
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e.getMessage(), e);
        }
    }

    private static String required(ResultSet row, String column, DatabaseDialect dialect) throws SQLException {
        String value = row.getString(column);
        if (value == null) {
            throw new IllegalStateException(dialect + " did not tell its " + column);
        }
        return value;
    }

    /** Says which tables, in which schema and database, on which server. */
    @Override
    public String toString() {
        return tablePrefix + "{record,instance,partition} in schema " + schema
                + (database.isEmpty() ? "" : " of database " + database) + " on server " + server;
    }
}
