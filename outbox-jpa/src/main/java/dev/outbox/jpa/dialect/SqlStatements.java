package dev.outbox.jpa.dialect;

import java.util.Objects;
import java.util.Optional;
import java.util.Properties;

/** The named SQL statements of one database, loaded by {@link DatabaseDialect#statements()}. Immutable. */
public final class SqlStatements {

    private final DatabaseDialect dialect;
    private final Properties statements;

    SqlStatements(DatabaseDialect dialect, Properties statements) {
        this.dialect = dialect;
        this.statements = statements;
    }

    public DatabaseDialect dialect() {
        return dialect;
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
