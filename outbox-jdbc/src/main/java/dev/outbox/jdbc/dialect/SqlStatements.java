package dev.outbox.jdbc.dialect;

import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/**
 * The named SQL statements of one database on one set of {@link OutboxTables}, made by
 * {@link DatabaseDialect#statements(OutboxTables, boolean)}. Immutable.
 */
public final class SqlStatements {

    private final DatabaseDialect dialect;
    private final OutboxTables tables;
    private final Properties statements;
    private final String recordTable;
    private final String instanceTable;
    private final String partitionTable;

    SqlStatements(DatabaseDialect dialect, OutboxTables tables, Properties statements, String recordTable,
            String instanceTable, String partitionTable) {
        this.dialect = dialect;
        this.tables = tables;
        this.statements = statements;
        this.recordTable = recordTable;
        this.instanceTable = instanceTable;
        this.partitionTable = partitionTable;
    }

    /** The record table as the statements name it: schema-qualified and quoted where configured. */
    public String recordTable() {
        return recordTable;
    }

    /** The instance table as the statements name it. */
    public String instanceTable() {
        return instanceTable;
    }

    /** The partition table as the statements name it. */
    public String partitionTable() {
        return partitionTable;
    }

    public DatabaseDialect dialect() {
        return dialect;
    }

    /** The tables these statements work on. */
    public OutboxTables tables() {
        return tables;
    }

    /** The statement with this key; fails naming the key when the resources lack it. */
    public String get(String key) {
        return find(key).orElseThrow(
                () -> new IllegalStateException("Outbox: no SQL statement '" + key + "' for " + dialect));
    }

    /** The statement with this key, or empty when this database has none (an optional, faster form). */
    public Optional<String> find(String key) {
        String sql = statements.getProperty(Objects.requireNonNull(key, "key"));
        return Optional.ofNullable(sql).map(String::strip);
    }
}
