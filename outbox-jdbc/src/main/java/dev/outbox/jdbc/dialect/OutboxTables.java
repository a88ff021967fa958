package dev.outbox.jdbc.dialect;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where the outbox tables are: an optional schema ({@code outbox.schema}) and the prefix of the three table names
 * ({@code outbox.table-prefix}, {@code outbox_} by default: {@code outbox_record}, {@code outbox_instance},
 * {@code outbox_partition}). Immutable.
 *
 * <p>Names are spliced into SQL, so they are held to a strict pattern here, before any statement is made: lower-case
 * ASCII letters, digits and underscores, starting with a letter. The SQL then quotes every configured name, so a name
 * that is a reserved word unquoted ({@code partition} with an empty prefix, a schema called {@code user}) works too.
 * The default names are left unquoted, as they always were.
 */
public final class OutboxTables {

    public static final String DEFAULT_PREFIX = "outbox_";

    /**
     * Longest prefix: the longest name made from it, {@code idx_<prefix>record_partition_status_retry}, must fit the
     * 63 characters PostgreSQL keeps of an identifier, and so must {@code <schema>.<prefix>record}, the
     * LISTEN/NOTIFY channel.
     */
    public static final int MAX_PREFIX_LENGTH = 24;

    /** Longest schema name, so that the channel name {@code <schema>.<prefix>record} fits 63 characters. */
    public static final int MAX_SCHEMA_LENGTH = 32;

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z][a-z0-9_]*");
    private static final OutboxTables DEFAULTS = builder().build();

    private final @Nullable String schema;
    private final String tablePrefix;
    /** Where the names were configured, for the messages of checks against the database; not part of equality. */
    private final String properties;

    private OutboxTables(Builder builder) {
        this.schema = builder.schema;
        this.tablePrefix = builder.tablePrefix;
        this.properties = builder.properties;
    }

    /** {@code outbox_record}, {@code outbox_instance} and {@code outbox_partition} in the connection's schema. */
    public static OutboxTables defaults() {
        return DEFAULTS;
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The schema (on MariaDB and MySQL, the database) of the tables; empty for the connection's default one. */
    public Optional<String> schema() {
        return Optional.ofNullable(schema);
    }

    public String tablePrefix() {
        return tablePrefix;
    }

    /** The property the schema was set by, for messages: {@code outbox.schema} unless the builder was told otherwise. */
    public String schemaProperty() {
        return properties + ".schema";
    }

    /** Whether these are the default names in the default schema, which the SQL leaves unquoted. */
    public boolean isDefault() {
        return schema == null && tablePrefix.equals(DEFAULT_PREFIX);
    }

    public String recordTable() {
        return tablePrefix + "record";
    }

    public String instanceTable() {
        return tablePrefix + "instance";
    }

    public String partitionTable() {
        return tablePrefix + "partition";
    }

    /**
     * The PostgreSQL LISTEN/NOTIFY channel of these tables: the record table's qualified name, so that outboxes in one
     * database do not wake each other ({@code outbox_record} by default).
     */
    public String notificationChannel() {
        return schema == null ? recordTable() : schema + "." + recordTable();
    }

    @Override
    public boolean equals(@Nullable Object other) {
        return other instanceof OutboxTables that && Objects.equals(schema, that.schema)
                && tablePrefix.equals(that.tablePrefix);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, tablePrefix);
    }

    @Override
    public String toString() {
        return (schema == null ? "" : schema + ".") + tablePrefix + "{record,instance,partition}";
    }

    /** Builds {@link OutboxTables}; every value is checked when set, naming the property and its limits. */
    public static final class Builder {

        private String properties = "outbox";
        private @Nullable String schema;
        private String tablePrefix = DEFAULT_PREFIX;

        private Builder() {
        }

        /**
         * Where the values come from, for the messages of bad ones: {@code outbox} (the default) names
         * {@code outbox.schema} and {@code outbox.table-prefix}. Set it before the values.
         */
        public Builder properties(String prefix) {
            this.properties = Objects.requireNonNull(prefix, "prefix");
            return this;
        }

        /** {@code outbox.schema}: the schema of the tables, or null or empty for the connection's default schema. */
        public Builder schema(@Nullable String schema) {
            if (schema == null || schema.isEmpty()) {
                this.schema = null;
                return this;
            }
            check(properties + ".schema", schema, MAX_SCHEMA_LENGTH);
            this.schema = schema;
            return this;
        }

        /** {@code outbox.table-prefix}: put before {@code record}, {@code instance} and {@code partition}; may be empty. */
        public Builder tablePrefix(String tablePrefix) {
            Objects.requireNonNull(tablePrefix, properties + ".table-prefix");
            if (!tablePrefix.isEmpty()) {
                check(properties + ".table-prefix", tablePrefix, MAX_PREFIX_LENGTH);
            }
            this.tablePrefix = tablePrefix;
            return this;
        }

        public OutboxTables build() {
            return new OutboxTables(this);
        }

        private static void check(String property, String value, int maxLength) {
            if (!IDENTIFIER.matcher(value).matches()) {
                throw new IllegalArgumentException(property + " must be lower-case ASCII letters, digits and "
                        + "underscores, starting with a letter ([a-z][a-z0-9_]*), but was '" + printable(value) + "'");
            }
            if (value.length() > maxLength) {
                throw new IllegalArgumentException(property + " must be at most " + maxLength
                        + " characters but was " + value.length() + " ('" + value + "')");
            }
        }

        /** The value as it can be shown in a message: control characters escaped, at most 80 characters. */
        private static String printable(String value) {
            StringBuilder shown = new StringBuilder();
            value.codePoints().limit(80).forEach(c -> {
                if (Character.isISOControl(c)) {
                    shown.append(String.format("\\u%04x", c));
                } else {
                    shown.appendCodePoint(c);
                }
            });
            return value.codePointCount(0, value.length()) > 80 ? shown + "…" : shown.toString();
        }
    }
}
