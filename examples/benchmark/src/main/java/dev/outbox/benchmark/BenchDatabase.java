package dev.outbox.benchmark;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.jdbc.OutboxSchemaInitializer;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The run's own database {@code outbox_bench_<random>}, created through the admin URL with the outbox schema and the
 * benchmark tables, and dropped by {@link #close()} (also from the driver's shutdown hook).
 */
final class BenchDatabase implements AutoCloseable {

    private static final int CONNECT_TIMEOUT_SECONDS = 5;
    private static final int POOL_SIZE = 10;
    private static final Pattern PLAN_ROWS = Pattern.compile("rows=(\\d+)");

    private final String adminUrl;
    private final String user;
    private final String password;
    private final String name;
    private final String url;
    private final HikariDataSource dataSource;
    private final JdbcTemplate jdbc;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final AtomicBoolean kept = new AtomicBoolean();

    private BenchDatabase(String adminUrl, String user, String password, String name) {
        this.adminUrl = adminUrl;
        this.user = user;
        this.password = password;
        this.name = name;
        this.url = withDatabase(adminUrl, name);
        HikariConfig config = new HikariConfig();
        config.setPoolName("bench-driver");
        config.setJdbcUrl(url + (url.contains("?") ? "&" : "?") + "ApplicationName=bench-driver");
        config.setUsername(user);
        config.setPassword(password);
        config.setMaximumPoolSize(POOL_SIZE);
        config.setConnectionTimeout(30_000);
        this.dataSource = new HikariDataSource(config);
        this.jdbc = new JdbcTemplate(dataSource);
    }

    /** Creates the database; the caller must close what it gets. */
    static BenchDatabase create(String adminUrl, String user, String password) {
        String name = "outbox_bench_" + UUID.randomUUID().toString().replace("-", "").substring(0, 12);
        try (Connection admin = connect(adminUrl, user, password); Statement statement = admin.createStatement()) {
            statement.execute("CREATE DATABASE " + name);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name + " through " + adminUrl + ": "
                    + e.getMessage(), e);
        }
        try {
            return new BenchDatabase(adminUrl, user, password, name);
        } catch (RuntimeException e) {
            drop(adminUrl, user, password, name);
            throw e;
        }
    }

    /** Applies the outbox changelog and creates the benchmark's tables. */
    void initialize() {
        OutboxSchemaInitializer.apply(dataSource);
        jdbc.execute(BenchSchema.CREATE_HANDLED);
    }

    String name() {
        return name;
    }

    /** JDBC URL of the benchmark database. */
    String url() {
        return url;
    }

    String user() {
        return user;
    }

    String password() {
        return password;
    }

    DataSource dataSource() {
        return dataSource;
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    String serverVersion() {
        return jdbc.queryForObject("SELECT version()", String.class);
    }

    /**
     * Empties the outbox and the handler table for the next measurement and forgets instances and partition owners left
     * by nodes that had to be killed (only called while no node runs), so new nodes need not wait for them to go stale.
     */
    void resetForPhase() {
        emptyOutbox();
        jdbc.update("DELETE FROM outbox_instance");
        jdbc.update("UPDATE outbox_partition SET owner_instance_id = NULL WHERE owner_instance_id IS NOT NULL");
    }

    /** Empties the outbox and the handler table; instances and partition owners stay (nodes may be running). */
    void emptyOutbox() {
        jdbc.execute("TRUNCATE outbox_record, bench_handled");
    }

    boolean newRecordsLeft() {
        return Boolean.TRUE.equals(jdbc.queryForObject(
                "SELECT EXISTS (SELECT 1 FROM outbox_record WHERE status = 'NEW')", Boolean.class));
    }

    /** Records of the outbox table by status. */
    Map<String, Long> statusCounts() {
        Map<String, Long> counts = new LinkedHashMap<>();
        jdbc.query("SELECT status, COUNT(*) AS records FROM outbox_record GROUP BY status ORDER BY status", rs -> {
            counts.put(rs.getString("status"), rs.getLong("records"));
        });
        return counts;
    }

    /**
     * Before a measurement: vacuum and analyze the table just filled (as autovacuum would do soon after a bulk load, but
     * now, so that no run measures a table with stale statistics), then a checkpoint, so that no checkpoint started by
     * the previous phase's writes runs during this one.
     */
    void prepareMeasurement(String table) {
        jdbc.execute("VACUUM (ANALYZE) " + table);
        checkpoint();
    }

    /**
     * Keeps autovacuum off {@code table} (or lets it back): a drain that starts with no statistics, or stale ones, must
     * not have them replaced by an autoanalyze halfway through.
     */
    void autovacuum(String table, boolean enabled) {
        jdbc.execute("ALTER TABLE " + table + (enabled ? " RESET (autovacuum_enabled)"
                : " SET (autovacuum_enabled = false)"));
    }

    /**
     * What the planner believes about {@code status = 'NEW'} in {@code table}: the column's most common values and
     * their frequencies from {@code pg_stats} (null when the column has no statistics), and the rows it expects.
     */
    StatusStatistics statusStatistics(String table) {
        List<Map<String, Object>> rows = jdbc.queryForList("SELECT most_common_vals::text AS vals,"
                + " most_common_freqs::text AS freqs FROM pg_stats"
                + " WHERE schemaname = current_schema() AND tablename = ? AND attname = 'status'", table);
        String plan = String.join("\n", jdbc.queryForList(
                "EXPLAIN SELECT id FROM " + table + " WHERE status = 'NEW'", String.class));
        Matcher rowsEstimate = PLAN_ROWS.matcher(plan);
        if (!rowsEstimate.find()) {
            throw new IllegalStateException("no row estimate in the plan " + plan);
        }
        long expected = Long.parseLong(rowsEstimate.group(1));
        if (rows.isEmpty()) {
            return new StatusStatistics(null, null, expected);
        }
        return new StatusStatistics((String) rows.get(0).get("vals"), (String) rows.get(0).get("freqs"), expected);
    }

    /**
     * {@code pg_stats} of the status column ({@code null}: no statistics) and the planner's estimate of the NEW rows.
     *
     * @param mostCommonValues e.g. {@code {COMPLETED}}; null when the column was never analyzed, or no value is common
     * @param mostCommonFrequencies e.g. {@code {1}}
     * @param plannedNewRows rows the planner expects {@code status = 'NEW'} to match
     */
    record StatusStatistics(@Nullable String mostCommonValues, @Nullable String mostCommonFrequencies,
            long plannedNewRows) {

        /** The frequency pg_stats gives {@code value}, 0 when it is not among the most common values. */
        double frequencyOf(String value) {
            if (mostCommonValues == null || mostCommonFrequencies == null) {
                return 0;
            }
            List<String> values = List.of(strip(mostCommonValues).split(","));
            List<String> frequencies = List.of(strip(mostCommonFrequencies).split(","));
            int index = values.indexOf(value);
            return index < 0 ? 0 : Double.parseDouble(frequencies.get(index));
        }

        private static String strip(String array) {
            return array.substring(1, array.length() - 1);
        }
    }

    void checkpoint() {
        try {
            jdbc.execute("CHECKPOINT");
        } catch (RuntimeException e) {
            // Needs superuser or pg_checkpoint; the measurement is only a little noisier without it.
            System.out.println("  (CHECKPOINT not permitted for " + user + "; continuing without)");
        }
    }

    /** Transactions committed and rolled back in the benchmark database (pg_stat_database, read from the admin one). */
    long transactionCount() {
        try (Connection admin = connect(adminUrl, user, password);
                PreparedStatement query = admin.prepareStatement(
                        "SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = ?")) {
            query.setString(1, name);
            try (var rs = query.executeQuery()) {
                return rs.next() ? rs.getLong(1) : -1;
            }
        } catch (SQLException e) {
            return -1;
        }
    }

    /** Leaves the database in place at {@link #close()}, for a look at it afterwards (dropped by hand). */
    void keep() {
        kept.set(true);
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        dataSource.close();
        if (kept.get()) {
            System.out.println("Database " + name + " kept: drop it with DROP DATABASE " + name);
            return;
        }
        drop(adminUrl, user, password, name);
    }

    private static void drop(String adminUrl, String user, String password, String name) {
        try (Connection admin = connect(adminUrl, user, password)) {
            try (PreparedStatement terminate = admin.prepareStatement("SELECT pg_terminate_backend(pid)"
                    + " FROM pg_stat_activity WHERE datname = ? AND pid <> pg_backend_pid()")) {
                terminate.setString(1, name);
                terminate.execute();
            }
            try (Statement statement = admin.createStatement()) {
                statement.execute("DROP DATABASE IF EXISTS " + name);
            }
        } catch (SQLException e) {
            System.err.println("Could not drop database " + name + ": " + e.getMessage());
        }
    }

    static Connection connect(String url, String user, String password) throws SQLException {
        Properties properties = new Properties();
        properties.setProperty("user", user);
        properties.setProperty("password", password);
        properties.setProperty("connectTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
        properties.setProperty("loginTimeout", String.valueOf(CONNECT_TIMEOUT_SECONDS));
        return DriverManager.getConnection(url, properties);
    }

    /** {@code jdbc:postgresql://host[:port][/db][?params]} with another database. */
    static String withDatabase(String url, String database) {
        String prefix = "jdbc:postgresql://";
        int query = url.indexOf('?');
        String parameters = query < 0 ? "" : url.substring(query);
        String rest = url.substring(prefix.length(), query < 0 ? url.length() : query);
        int slash = rest.indexOf('/');
        String hosts = slash < 0 ? rest : rest.substring(0, slash);
        return prefix + hosts + "/" + database + parameters;
    }
}
