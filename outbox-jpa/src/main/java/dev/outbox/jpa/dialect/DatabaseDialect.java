package dev.outbox.jpa.dialect;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.Arrays;
import java.util.Locale;
import java.util.Properties;
import java.util.stream.Collectors;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The databases the outbox runs on. The SQL of each is data: {@code sql/standard.xml} holds the statements in standard
 * SQL and {@code sql/<database>.xml} overrides only what differs (both are {@link Properties} XML files beside this
 * class).
 */
public enum DatabaseDialect {

    POSTGRESQL("PostgreSQL", "postgresql"),
    H2("H2", "h2");

    private static final Logger log = LoggerFactory.getLogger(DatabaseDialect.class);

    private final String productName;
    private final String resourceName;

    DatabaseDialect(String productName, String resourceName) {
        this.productName = productName;
        this.resourceName = resourceName;
    }

    /** Detects the database behind {@code dataSource} from its JDBC metadata; fails for an unsupported one. */
    public static DatabaseDialect detect(DataSource dataSource) {
        try (Connection connection = dataSource.getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            DatabaseDialect dialect = fromProductName(metaData.getDatabaseProductName());
            log.info("Outbox uses the {} dialect for {} {}", dialect, metaData.getDatabaseProductName(),
                    metaData.getDatabaseProductVersion());
            return dialect;
        } catch (SQLException e) {
            throw new IllegalStateException("Outbox: cannot read the database product from the DataSource", e);
        }
    }

    /** The dialect for a JDBC product name such as {@code PostgreSQL} or {@code H2}. */
    public static DatabaseDialect fromProductName(String productName) {
        String lower = productName.toLowerCase(Locale.ROOT);
        for (DatabaseDialect dialect : values()) {
            if (lower.contains(dialect.resourceName)) {
                return dialect;
            }
        }
        throw new IllegalStateException("Outbox does not support the database '" + productName + "'; supported: "
                + Arrays.stream(values()).map(d -> d.productName).collect(Collectors.joining(", ")));
    }

    /** The statements of this database: the standard ones with this database's overrides applied. */
    public SqlStatements statements() {
        Properties merged = load("standard", true);
        merged.putAll(load(resourceName, false));
        return new SqlStatements(this, merged);
    }

    /** Converts an instant to the JDBC value the timestamp columns of this database take. */
    public Object timestampValue(Instant instant) {
        return OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    /** Reads a timestamp column written with {@link #timestampValue(Instant)}. */
    public @Nullable Instant readTimestamp(ResultSet resultSet, String column) throws SQLException {
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
