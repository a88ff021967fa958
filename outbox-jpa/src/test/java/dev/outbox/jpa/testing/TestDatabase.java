package dev.outbox.jpa.testing;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Locale;
import java.util.Properties;
import java.util.UUID;
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
 * <p>H2 runs in memory. PostgreSQL is found once per JVM, in this order:
 * <ol>
 *   <li>{@code OUTBOX_TEST_POSTGRES_URL}: JDBC URL of an admin database (one that may {@code CREATE DATABASE}),
 *       with {@code OUTBOX_TEST_POSTGRES_USER} (default {@code postgres}) and {@code OUTBOX_TEST_POSTGRES_PASSWORD}
 *       (default empty);</li>
 *   <li>{@value #LOCAL_POSTGRES_URL} as {@code postgres}, if it answers within a few seconds;</li>
 *   <li>a Testcontainers PostgreSQL container, started once per JVM, if Docker is available.</li>
 * </ol>
 * Without any of them a PostgreSQL test is skipped (JUnit assumption), or fails if {@code OUTBOX_TEST_REQUIRE_DB} is
 * {@code true} (set it in CI so that missing PostgreSQL cannot pass unnoticed).
 *
 * <p>Unquoted identifiers come back upper-case from H2 metadata and lower-case from PostgreSQL metadata.
 */
public final class TestDatabase implements AutoCloseable {

    /** The database engines tests run against. */
    public enum Kind {
        H2,
        POSTGRES
    }

    private static final String LOCAL_POSTGRES_URL = "jdbc:postgresql://127.0.0.1:5432/test";
    private static final String LOCAL_POSTGRES_USER = "postgres";
    private static final String POSTGRES_IMAGE = "postgres:15-alpine";
    private static final int PROBE_TIMEOUT_SECONDS = 3;
    private static final int POOL_SIZE = 10;

    /** Set on first use of PostgreSQL: the server found, or why there is none. */
    private static @Nullable PostgresLookup postgres;

    private final Kind kind;
    private final String name;
    private final String jdbcUrl;
    private final String username;
    private final String password;
    private final HikariDataSource dataSource;
    private final @Nullable PostgresServer server;
    private final AtomicBoolean closed = new AtomicBoolean();

    private TestDatabase(Kind kind, String name, String jdbcUrl, String username, String password,
            @Nullable PostgresServer server) {
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
     * @throws org.opentest4j.TestAbortedException if PostgreSQL is wanted but none can be found (test skipped)
     * @throws IllegalStateException if PostgreSQL is wanted, none can be found and {@code OUTBOX_TEST_REQUIRE_DB}
     *     is {@code true}
     */
    public static TestDatabase create(Kind kind) {
        String suffix = UUID.randomUUID().toString().replace("-", "").substring(0, 16);
        return switch (kind) {
            case H2 -> {
                String name = "outbox_" + suffix;
                yield new TestDatabase(kind, name, "jdbc:h2:mem:" + name + ";DB_CLOSE_DELAY=-1", "sa", "", null);
            }
            case POSTGRES -> {
                PostgresServer server = postgresServer();
                String name = "outbox_test_" + suffix;
                server.execute("CREATE DATABASE " + name);
                try {
                    yield new TestDatabase(kind, name, withDatabase(server.adminUrl(), name), server.username(),
                            server.password(), server);
                } catch (RuntimeException e) {
                    server.dropDatabase(name);
                    throw e;
                }
            }
        };
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

    /** The admin URL with its database replaced: {@code jdbc:postgresql://host[:port][/db][?params]}. */
    static String withDatabase(String adminUrl, String database) {
        String prefix = "jdbc:postgresql://";
        if (!adminUrl.startsWith(prefix)) {
            throw new IllegalArgumentException("Expected " + prefix + "host[:port]/database, got " + adminUrl);
        }
        int query = adminUrl.indexOf('?');
        String params = query < 0 ? "" : adminUrl.substring(query);
        String hostAndPath = adminUrl.substring(prefix.length(), query < 0 ? adminUrl.length() : query);
        int slash = hostAndPath.indexOf('/');
        String hosts = slash < 0 ? hostAndPath : hostAndPath.substring(0, slash);
        return prefix + hosts + "/" + database + params;
    }

    private static synchronized PostgresServer postgresServer() {
        if (postgres == null) {
            postgres = findPostgres();
        }
        PostgresLookup lookup = postgres;
        if (lookup.server() != null) {
            return lookup.server();
        }
        if ("true".equalsIgnoreCase(System.getenv("OUTBOX_TEST_REQUIRE_DB"))) {
            throw new IllegalStateException(lookup.problem());
        }
        return Assumptions.abort(lookup.problem());
    }

    private static PostgresLookup findPostgres() {
        String url = System.getenv("OUTBOX_TEST_POSTGRES_URL");
        if (url != null && !url.isBlank()) {
            return PostgresLookup.found(new PostgresServer(url.trim(), envOr("OUTBOX_TEST_POSTGRES_USER", "postgres"),
                    envOr("OUTBOX_TEST_POSTGRES_PASSWORD", "")));
        }
        PostgresServer local = new PostgresServer(LOCAL_POSTGRES_URL, LOCAL_POSTGRES_USER, "");
        String localProblem = local.probe();
        if (localProblem == null) {
            return PostgresLookup.found(local);
        }
        String containerProblem;
        try {
            PostgresServer container = Containers.postgres();
            if (container != null) {
                return PostgresLookup.found(container);
            }
            containerProblem = "Docker is not available for Testcontainers";
        } catch (NoClassDefFoundError e) {
            containerProblem = "Testcontainers is not on the test class path";
        } catch (RuntimeException e) {
            containerProblem = "the Testcontainers PostgreSQL container did not start: " + e;
        }
        return PostgresLookup.missing("No PostgreSQL for tests. Tried " + LOCAL_POSTGRES_URL + " as "
                + LOCAL_POSTGRES_USER + " (" + localProblem + "), and " + containerProblem + ". "
                + "Set OUTBOX_TEST_POSTGRES_URL to the JDBC URL of an admin database (plus OUTBOX_TEST_POSTGRES_USER "
                + "and OUTBOX_TEST_POSTGRES_PASSWORD), start PostgreSQL on 127.0.0.1:5432 with user postgres, "
                + "or start Docker.");
    }

    private static String envOr(String name, String fallback) {
        String value = System.getenv(name);
        return value == null ? fallback : value;
    }

    /** Either a server or the reason there is none. */
    private record PostgresLookup(@Nullable PostgresServer server, String problem) {

        static PostgresLookup found(PostgresServer server) {
            return new PostgresLookup(server, "");
        }

        static PostgresLookup missing(String problem) {
            return new PostgresLookup(null, problem);
        }
    }

    /** A PostgreSQL server reached through an admin database. */
    private record PostgresServer(String adminUrl, String username, String password) {

        Connection connect() throws SQLException {
            Properties properties = new Properties();
            properties.setProperty("user", username);
            properties.setProperty("password", password);
            properties.setProperty("connectTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
            properties.setProperty("loginTimeout", String.valueOf(PROBE_TIMEOUT_SECONDS));
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
                try (PreparedStatement terminate = connection.prepareStatement(
                        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                                + " WHERE datname = ? AND pid <> pg_backend_pid()")) {
                    terminate.setString(1, database);
                    terminate.execute();
                }
                try (Statement statement = connection.createStatement()) {
                    statement.execute("DROP DATABASE IF EXISTS " + database);
                }
            } catch (SQLException e) {
                throw new IllegalStateException("Could not drop test database " + database + " on " + adminUrl, e);
            }
        }
    }

    /** Testcontainers, kept apart so that the rest works without it on the class path. */
    private static final class Containers {

        /** Started at most once; Testcontainers removes it when the JVM ends. */
        static @Nullable PostgresServer postgres() {
            if (!org.testcontainers.DockerClientFactory.instance().isDockerAvailable()) {
                return null;
            }
            org.testcontainers.postgresql.PostgreSQLContainer container =
                    new org.testcontainers.postgresql.PostgreSQLContainer(POSTGRES_IMAGE);
            container.start();
            String host = container.getHost();
            if ("localhost".equals(host.toLowerCase(Locale.ROOT))) {
                host = "127.0.0.1";
            }
            String url = "jdbc:postgresql://" + host + ":" + container.getMappedPort(5432) + "/"
                    + container.getDatabaseName();
            return new PostgresServer(url, container.getUsername(), container.getPassword());
        }
    }
}
