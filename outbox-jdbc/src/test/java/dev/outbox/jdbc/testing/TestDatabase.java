package dev.outbox.jdbc.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.UUID;
import java.util.stream.Stream;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * A brand-new, uniquely named database for one test (or one test class), dropped again by {@link #close()}.
 *
 * <pre>{@code
 * try (TestDatabase db = TestDatabase.create(TestDatabase.Kind.POSTGRES)) {
 *     OutboxSchemaInitializer.apply(db.dataSource());
 *     ...
 * }
 * }</pre>
 *
 * <p>H2 runs in memory. A PostgreSQL or MariaDB server is found once per JVM, in this order:
 * <ol>
 *   <li>{@code OUTBOX_TEST_POSTGRES_URL} / {@code OUTBOX_TEST_MARIADB_URL}: JDBC URL of an admin database (one that
 *       may {@code CREATE DATABASE}), with {@code OUTBOX_TEST_POSTGRES_USER} (default {@code postgres}) /
 *       {@code OUTBOX_TEST_MARIADB_USER} (default {@code root}) and {@code …_PASSWORD} (default empty);</li>
 *   <li>the local server ({@value #LOCAL_POSTGRES_URL} as {@code postgres}, {@value #LOCAL_MARIADB_URL} as
 *       {@code root}), if it answers within a few seconds;</li>
 *   <li>a Testcontainers container, started once per JVM, if Docker is available.</li>
 * </ol>
 * Without any of them the test is skipped (JUnit assumption), or fails if {@code OUTBOX_TEST_REQUIRE_DB} is
 * {@code true} (set it in CI so that a missing database cannot pass unnoticed).
 *
 * <p>Unquoted identifiers come back upper-case from H2 metadata and lower-case from PostgreSQL and MariaDB metadata.
 */
public final class TestDatabase implements AutoCloseable {

    /** The database engines tests run against. */
    public enum Kind {
        H2,
        POSTGRES,
        MARIADB
    }

    private static final String LOCAL_POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String LOCAL_MARIADB_URL = "jdbc:mariadb://127.0.0.1:3306/test";
    private static final String POSTGRES_IMAGE = "postgres:15-alpine";
    private static final String MARIADB_IMAGE = "mariadb:10.11";
    private static final int PROBE_TIMEOUT_SECONDS = 3;
    private static final int POOL_SIZE = 10;

    /** Set on first use of each server kind: the server found, or why there is none. */
    private static final Map<Kind, ServerLookup> servers = new EnumMap<>(Kind.class);

    private final Kind kind;
    private final String name;
    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final HikariDataSource dataSource;
    private final @Nullable Server server;
    private final AtomicBoolean closed = new AtomicBoolean();
    /** The databases {@link #createSchema} made on MariaDB. */
    private final List<String> schemas = new CopyOnWriteArrayList<>();

    private TestDatabase(Kind kind, String name, String jdbcUrl, String username, String password,
            @Nullable Server server) {
        this.kind = kind;
        this.name = name;
        this.jdbcUrl = jdbcUrl;
        this.username = username;
        this.password = password;
        this.server = server;
        this.dataSource = pool(name, jdbcUrl, username, password);
    }

    /**
     * Creates a new empty database of the given kind.
     *
     * @throws org.opentest4j.TestAbortedException if a server is wanted but none can be found (test skipped)
     * @throws IllegalStateException if a server is wanted, none can be found and {@code OUTBOX_TEST_REQUIRE_DB} is
     *     {@code true}
     */
    public static TestDatabase create(Kind kind) {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        if (kind == Kind.H2) {
            String name = "outbox_" + suffix;
            return new TestDatabase(kind, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "", null);
        }
        return createOn(server(kind), suffix);
    }

    /**
     * Creates a new empty database on the server of {@code adminUrl} (a database there the user may
     * {@code CREATE DATABASE} from) instead of the one found for {@code kind}: for a server of the test's own, one it
     * may stop, crash and start again.
     */
    public static TestDatabase createOn(Kind kind, String adminUrl, String username, String password) {
        if (kind == Kind.H2) {
            throw new IllegalArgumentException("H2 runs in memory: use create(Kind.H2)");
        }
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return createOn(new Server(kind, adminUrl, username, password), suffix);
    }

    private static TestDatabase createOn(Server server, String suffix) {
        String name = "outbox_test_" + suffix;
        server.execute("CREATE DATABASE " + name);
        try {
            return new TestDatabase(server.kind(), name, withDatabase(server.adminUrl(), name), server.username(),
                    server.password(), server);
        } catch (RuntimeException e) {
            server.dropDatabase(name);
            throw e;
        }
    }

    public Kind kind() {
        return kind;
    }

    /** The database's own name (unique per instance). */
    public String databaseName() {
        return name;
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String username() {
        return username;
    }

    public String password() {
        return password;
    }

    /**
     * Creates a schema for outbox tables and returns its name: {@code wanted} on PostgreSQL and H2, where schemas
     * live inside this database (quoted, so it may be a reserved word); on MariaDB, where a schema is a database of
     * the server, a new database with a unique name, dropped with this one.
     */
    public String createSchema(String wanted) {
        if (kind == Kind.MARIADB) {
            String schema = "outbox_s_" + UUID.randomUUID().toString().replace("-", "").substring(0, 16);
            Objects.requireNonNull(server).execute("CREATE DATABASE " + schema);
            schemas.add(schema);
            return schema;
        }
        String stored = kind == Kind.H2 ? wanted.toUpperCase(Locale.ROOT) : wanted;
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
            statement.execute("CREATE SCHEMA \"" + stored + "\"");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create schema " + wanted + " in " + name, e);
        }
        return wanted;
    }

    /**
     * Every table of this database outside the system schemas, as {@code schema.table} (on MariaDB, whose schemas are
     * databases of the server, those of this database and of the schemas {@link #createSchema} made): what a test
     * asserts is empty when nothing may have been created.
     */
    public List<String> tables() {
        String sql = switch (kind) {
            case POSTGRES -> "SELECT table_schema || '.' || table_name FROM information_schema.tables"
                    + " WHERE table_schema NOT IN ('pg_catalog', 'information_schema')";
            case H2 -> "SELECT table_schema || '.' || table_name FROM information_schema.tables"
                    + " WHERE table_schema <> 'INFORMATION_SCHEMA'";
            case MARIADB -> "SELECT CONCAT(table_schema, '.', table_name) FROM information_schema.tables"
                    + " WHERE table_schema = DATABASE() OR table_schema IN ('" + String.join("', '", schemas) + "')";
        };
        List<String> tables = new ArrayList<>();
        try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement();
                ResultSet rows = statement.executeQuery(sql)) {
            while (rows.next()) {
                tables.add(rows.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not list the tables of " + name, e);
        }
        return tables;
    }

    /** A pool of at most ten connections to this database; closed by {@link #close()}. */
    public DataSource dataSource() {
        return dataSource;
    }

    /** Closes the pool and drops the database. Calling it again does nothing. */
    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        dataSource.close();
        if (server != null) {
            schemas.forEach(server::dropDatabase);
            server.dropDatabase(name);
        } else {
            try (Connection connection = DriverManager.getConnection(jdbcUrl, username, password);
                    Statement statement = connection.createStatement()) {
                statement.execute("SHUTDOWN");
            } catch (SQLException e) {
                throw new IllegalStateException("Could not shut down H2 database " + name, e);
            }
        }
    }

    @Override
    public String toString() {
        return kind + " " + jdbcUrl;
    }

    private static HikariDataSource pool(String name, String jdbcUrl, String username, String password) {
        HikariConfig config = new HikariConfig();
        config.setPoolName("test-" + name);
        config.setJdbcUrl(jdbcUrl);
        config.setUsername(username);
        config.setPassword(password);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(1);
        config.setConnectionTimeout(10_000);
        return new HikariDataSource(config);
    }

    /**
     * The admin URL with its database replaced: {@code jdbc:postgresql://host[:port][/db][?params]}, and the same for
     * {@code jdbc:mariadb:} and {@code jdbc:mysql:}.
     */
    static String withDatabase(String adminUrl, String database) {
        String prefix = Stream.of("jdbc:postgresql://", "jdbc:mariadb://", "jdbc:mysql://").filter(adminUrl::startsWith)
                .findFirst().orElseThrow(() -> new IllegalArgumentException(
                        "Expected jdbc:postgresql://, jdbc:mariadb:// or jdbc:mysql://host[:port]/database, got "
                                + adminUrl));
        int query = adminUrl.indexOf('?');
        String params = query < 0 ? "" : adminUrl.substring(query);
        String hostAndPath = adminUrl.substring(prefix.length(), query < 0 ? adminUrl.length() : query);
        int slash = hostAndPath.indexOf('/');
        String hosts = slash < 0 ? hostAndPath : hostAndPath.substring(0, slash);
        return prefix + hosts + "/" + database + params;
    }

    private static synchronized Server server(Kind kind) {
        ServerLookup lookup = servers.computeIfAbsent(kind, TestDatabase::findServer);
        if (lookup.server() != null) {
            return lookup.server();
        }
        if ("true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_DB"))) {
            throw new IllegalStateException(lookup.problem());
        }
        return Assumptions.abort(lookup.problem());
    }

    private static ServerLookup findServer(Kind kind) {
        boolean postgres = kind == Kind.POSTGRES;
        String env = postgres ? "OUTBOX_TEST_POSTGRES" : "OUTBOX_TEST_MARIADB";
        String url = System.getenv(env + "_URL");
        if (url != null && !url.isBlank()) {
            return ServerLookup.found(new Server(kind, url.trim(), envOr(env + "_USER", postgres ? "postgres" : "root"),
                    envOr(env + "_PASSWORD", "")));
        }
        Server local = postgres ? new Server(kind, LOCAL_POSTGRES_URL, "postgres", "")
                : new Server(kind, LOCAL_MARIADB_URL, "root", "");
        String localProblem = local.probe();
        if (localProblem == null) {
            return ServerLookup.found(local);
        }
        String containerProblem;
        try {
            Server container = Containers.start(kind);
            if (container != null) {
                return ServerLookup.found(container);
            }
            containerProblem = "Docker is not available for Testcontainers";
        } catch (NoClassDefFoundError e) {
            containerProblem = "Testcontainers is not on the test class path";
        } catch (RuntimeException e) {
            containerProblem = "the Testcontainers " + kind + " container did not start: " + e;
        }
        return ServerLookup.missing("No " + kind + " server for tests. Tried " + local.adminUrl() + " as "
                + local.username() + " (" + localProblem + "), and " + containerProblem + ". Set " + env
                + "_URL to the JDBC URL of an admin database (plus " + env + "_USER and " + env + "_PASSWORD), "
                + "start the server on " + local.adminUrl() + ", or start Docker.");
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

    /** Either a server or the reason there is none. */
    private record ServerLookup(@Nullable Server server, String problem) {

        static ServerLookup found(Server server) {
            return new ServerLookup(server, "");
        }

        static ServerLookup missing(String problem) {
            return new ServerLookup(null, problem);
        }
    }

    /** A PostgreSQL or MariaDB server reached through an admin database. */
    private record Server(Kind kind, String adminUrl, String username, String password) {

        Connection connect() throws SQLException {
            Properties properties = new Properties();
            properties.setProperty("user", username);
            properties.setProperty("password", password);
            if (kind == Kind.POSTGRES) {
                properties.setProperty("connectTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
                properties.setProperty("loginTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
            } else {
                properties.setProperty("connectTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS * 1000));
            }
            return DriverManager.getConnection(adminUrl, properties);
        }

        /** Null if the server answers, else why not. */
        @Nullable String probe() {
            try (Connection connection = connect()) {
                return connection.isValid(PROBE_TIMEOUT_SECONDS) ? null : "connection not valid";
            } catch (SQLException e) {
                return e.getMessage();
            }
        }

        void execute(String sql) {
            try (Connection connection = connect(); Statement statement = connection.createStatement()) {
                statement.execute(sql);
            } catch (SQLException e) {
                throw new IllegalStateException(sql + " failed on " + adminUrl, e);
            }
        }

        /** Ends the sessions still on the database (a pool closing may leave some), then drops it. */
        void dropDatabase(String database) {
            try (Connection connection = connect()) {
                if (kind == Kind.POSTGRES) {
                    try (PreparedStatement terminate = connection.prepareStatement(
                            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                    + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
                        terminate.setString(1, database);
                        terminate.execute();
                    }
                } else {
                    killSessions(connection, database);
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute("DROP DATABASE IF EXISTS " + database);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("Could not drop test database " + database + " on " + adminUrl, e);
            }
        }

        private static void killSessions(Connection connection, String database) throws SQLException {
            List<Long> sessions = new ArrayList<>();
            try (PreparedStatement find = connection.prepareStatement(
                    "SELECT id FROM information_schema.processlist WHERE db = ? AND id <> CONNECTION_ID()")) {
                find.setString(1, database);
                try (ResultSet rs = find.executeQuery()) {
                    while (rs.next()) {
                        sessions.add(rs.getLong(1));
                    }
                }
            }
            for (long session : sessions) {
                try (Statement kill = connection.createStatement()) {
                    kill.execute("KILL " + session);
                } catch (SQLException alreadyGone) {
                    // ended between the query and the kill
                }
            }
        }
    }

    /** Testcontainers, kept apart so that the rest works without it on the class path. */
    private static final class Containers {

        /** Started at most once per kind; Testcontainers removes it when the JVM ends. */
        static @Nullable Server start(Kind kind) {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            if (kind == Kind.POSTGRES) {
                org.testcontainers.postgresql.PostgreSQLContainer container =
                        new org.testcontainers.postgresql.PostgreSQLContainer(POSTGRES_IMAGE);
                container.start();
                return new Server(kind, "jdbc:postgresql://" + host(container.getHost()) + ":"
                        + container.getMappedPort(5432) + "/" + container.getDatabaseName(), container.getUsername(),
                        container.getPassword());
            }
            org.testcontainers.mariadb.MariaDBContainer container =
                    new org.testcontainers.mariadb.MariaDBContainer(MARIADB_IMAGE).withUsername("root");
            container.start();
            return new Server(kind, "jdbc:mariadb://" + host(container.getHost()) + ":"
                    + container.getMappedPort(3306) + "/" + container.getDatabaseName(), "root",
                    container.getPassword());
        }

        private static String host(String host) {
            return "localhost".equals(host.toLowerCase(Locale.ROOT)) ? "127.0.0.1" : host;
        }
    }
}
