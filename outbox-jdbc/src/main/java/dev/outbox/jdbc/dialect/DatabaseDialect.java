package dev.outbox.jdbc.dialect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases the outbox runs on. The SQL of each is data: {@code sql/standard.xml} holds the statements in standard
 * SQL and {@code sql/<database>.xml} overrides only what differs (both are {@link Properties} XML files beside this
 * class); MariaDB reads MySQL's file, then {@code sql/mariadb.xml} for the little that differs between the two.
 * {@code {now}} in a statement is the database's current time in UTC, at microsecond precision.
 */
public enum DatabaseDialect {

    /** PostgreSQL; the one database with LISTEN/NOTIFY. */
    POSTGRESQL("PostgreSQL", "postgresql", "postgresql", "CURRENT_TIMESTAMP", true, true, true, false, '"'),
    H2("H2", "h2", "h2", "CURRENT_TIMESTAMP", true, false, false, false, '"'),
    /** MariaDB 10.11 and later. Its timestamps are {@code DATETIME(6)} in UTC. */
    MARIADB("MariaDB", "mariadb", "mysql", "UTC_TIMESTAMP(6)", false, false, false, true, '`'),
    /** MySQL 8 and later; the same SQL as MariaDB. */
    MYSQL("MySQL", "mysql", "mysql", "UTC_TIMESTAMP(6)", false, false, false, true, '`');

    private static final Logger log = LoggerFactory.getLogger(DatabaseDialect.class);

    private final String productName;
    private final String productToken;
    private final String resourceName;
    private final String now;
    private final boolean zonedTimestamps;
    private final boolean notifications;
    private final boolean heartbeatsInOneTransaction;
    private final boolean writesLockWhatTheyRead;
    private final char identifierQuote;

    DatabaseDialect(String productName, String productToken, String resourceName, String now,
            boolean zonedTimestamps, boolean notifications, boolean heartbeatsInOneTransaction,
            boolean writesLockWhatTheyRead, char identifierQuote) {
        this.productName = productName;
        this.productToken = productToken;
        this.resourceName = resourceName;
        this.now = now;
        this.zonedTimestamps = zonedTimestamps;
        this.notifications = notifications;
        this.heartbeatsInOneTransaction = heartbeatsInOneTransaction;
        this.writesLockWhatTheyRead = writesLockWhatTheyRead;
        this.identifierQuote = identifierQuote;
    }

    /** The database's name as people write it, for messages: {@code PostgreSQL}, {@code MariaDB}, … */
    public String productName() {
        return productName;
    }

    /** Whether a committing transaction can wake the other instances (LISTEN/NOTIFY); see PostgresNotifications. */
    public boolean hasNotifications() {
        return notifications;
    }

    /**
     * Whether an instance's heartbeat and its read of the live instances share one transaction, which saves a commit
     * per heartbeat. An instance frozen between the two then holds its row locked, so this is only where nobody
     * waits for that lock: PostgreSQL's claims read instance rows without locking them and its removal of stale
     * instances skips locked rows. InnoDB's claims lock the instance rows their subqueries read (shared), and H2's
     * removal of stale instances waits for a locked row, so there a frozen instance would hold up every other
     * instance's takeover; there the heartbeat commits on its own.
     */
    public boolean heartbeatsInOneTransaction() {
        return heartbeatsInOneTransaction;
    }

    /**
     * Whether a write's subqueries lock the rows they read until the transaction ends, at the database's default
     * isolation: InnoDB at {@code REPEATABLE READ}. A transaction of fenced writes then holds its partition rows, and
     * an instance paused before its commit would hold up every claim of those partitions; such transactions run at
     * {@code READ COMMITTED}, where the fence is read as on PostgreSQL, without a lock.
     */
    public boolean writesLockWhatTheyRead() {
        return writesLockWhatTheyRead;
    }

    /** Detects the database behind {@code dataSource} from its JDBC metadata; fails for an unsupported one. */
    public static DatabaseDialect detect(DataSource dataSource) {
        return detect(dataSource, OutboxTables.defaults()).dialect();
    }

    /**
     * The statements on {@code tables} of the database behind {@code dataSource}, detected from its JDBC metadata;
     * fails for an unsupported database.
     */
    public static SqlStatements detect(DataSource dataSource, OutboxTables tables) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            SqlStatements statements = statements(metaData, tables);
            log.info("Outbox uses the {} dialect for {} {}, tables {}", statements.dialect(),
                    metaData.getDatabaseProductName(), metaData.getDatabaseProductVersion(), tables);
            return statements;
        } catch (SQLException e) {
            throw new IllegalStateException("Outbox: cannot read the database product from the DataSource", e);
        }
    }

    /** The statements on {@code tables} of the database {@code metaData} describes. */
    public static SqlStatements statements(DatabaseMetaData metaData, OutboxTables tables) throws SQLException {
        DatabaseDialect dialect = fromProductName(metaData.getDatabaseProductName());
        return dialect.statements(tables, !tables.isDefault() && metaData.storesUpperCaseIdentifiers());
    }

    /** The dialect for a JDBC product name such as {@code PostgreSQL}, {@code H2}, {@code MariaDB} or {@code MySQL}. */
    public static DatabaseDialect fromProductName(String productName) {
        String lower = productName.toLowerCase(Locale.ROOT);
        for (DatabaseDialect dialect : values()) {
            if (lower.contains(dialect.productToken)) {
                return dialect;
            }
        }
        throw new IllegalStateException("Outbox does not support the database '" + productName + "'; supported: "
                + Arrays.stream(values()).map(d -> d.productName).collect(Collectors.joining(", ")));
    }

    /**
     * The statements of this database on the default tables ({@link OutboxTables#defaults()}): the standard ones with
     * this database's overrides applied. Read once.
     */
    public SqlStatements statements() {
        return Loaded.DEFAULT_TABLES.get(this);
    }

    /**
     * The statements of this database on {@code tables}. A configured name is quoted, in the case this database
     * keeps unquoted names in ({@code upperCaseIdentifiers}: {@link DatabaseMetaData#storesUpperCaseIdentifiers()},
     * as H2 does unless told otherwise), so that it names the same table as the changelog's unquoted name.
     */
    public SqlStatements statements(OutboxTables tables, boolean upperCaseIdentifiers) {
        Objects.requireNonNull(tables, "tables");
        if (tables.isDefault()) {
            return statements();
        }
        return render(tables, name -> {
            String stored = upperCaseIdentifiers ? name.toUpperCase(Locale.ROOT) : name;
            return identifierQuote + stored + identifierQuote;
        });
    }

    private SqlStatements render(OutboxTables tables, UnaryOperator<String> quote) {
        String schema = tables.schema().map(name -> quote.apply(name) + ".").orElse("");
        Map<String, String> names = Map.of(
                "{recordTable}", schema + quote.apply(tables.recordTable()),
                "{instanceTable}", schema + quote.apply(tables.instanceTable()),
                "{partitionTable}", schema + quote.apply(tables.partitionTable()));
        Properties rendered = new Properties();
        Loaded.TEMPLATES.get(this).forEach((key, sql) -> {
            String statement = (String) sql;
            for (Map.Entry<String, String> name : names.entrySet()) {
                statement = statement.replace(name.getKey(), name.getValue());
            }
            rendered.put(key, statement);
        });
        return new SqlStatements(this, tables, rendered, names.get("{recordTable}"), names.get("{instanceTable}"),
                names.get("{partitionTable}"));
    }

    private Properties load() {
        Properties merged = load("standard", true);
        merged.putAll(load(resourceName, false));
        if (!productToken.equals(resourceName)) {
            merged.putAll(load(productToken, false));
        }
        merged.replaceAll((key, sql) -> ((String) sql).replace("{now}", now));
        return merged;
    }

    /** The statements of every database, read when first asked for. */
    private static final class Loaded {
        static final Map<DatabaseDialect, Properties> TEMPLATES = new EnumMap<>(Arrays.stream(values())
                .collect(Collectors.toMap(Function.identity(), DatabaseDialect::load)));

        /** The default names are plain identifiers, reserved nowhere: unquoted, they fold as the database folds. */
        static final Map<DatabaseDialect, SqlStatements> DEFAULT_TABLES = new EnumMap<>(Arrays.stream(values())
                .collect(Collectors.toMap(Function.identity(),
                        dialect -> dialect.render(OutboxTables.defaults(), UnaryOperator.identity()))));
    }

    /**
     * Converts an instant to the JDBC value the timestamp columns of this database take: an offset date-time where
     * the column keeps the zone, else the UTC wall-clock time ({@code DATETIME(6)} holds UTC).
     */
    public Object timestampValue(Instant instant) {
        return zonedTimestamps ? OffsetDateTime.ofInstant(instant, ZoneOffset.UTC)
                : LocalDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /** Reads a timestamp column written with {@link #timestampValue(Instant)}. */
    public @Nullable Instant readTimestamp(ResultSet resultSet, String column) throws SQLException {
        if (!zonedTimestamps) {
            LocalDateTime value = resultSet.getObject(column, LocalDateTime.class);
            return value == null ? null : value.toInstant(ZoneOffset.UTC);
        }
        OffsetDateTime value = resultSet.getObject(column, OffsetDateTime.class);
        return value == null ? null : value.toInstant();
    }

    private static Properties load(String name, boolean required) {
        String path = "sql/" + name + ".xml";
        Properties properties = new Properties();
        try (InputStream in = DatabaseDialect.class.getResourceAsStream(path)) {
            if (in == null) {
                if (required) {
                    throw new IllegalStateException("Outbox: missing SQL resource " + path);
                }
                return properties;
            }
            properties.loadFromXML(in);
            return properties;
        } catch (IOException e) {
            throw new UncheckedIOException("Outbox: cannot read SQL resource " + path, e);
        }
    }
}
