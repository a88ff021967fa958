package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/** The reserved connection on H2 and PostgreSQL, over a small Hikari pool of its own per test. */
class ReservedConnectionDataSourceTest {

    /** A pool of {@code size} connections to {@code database} that gives up waiting after 250 ms. */
    private static HikariDataSource pool(TestDatabase database, int size) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(database.jdbcUrl());
        config.setUsername(database.username());
        config.setPassword(database.password());
        config.setMaximumPoolSize(size);
        config.setMinimumIdle(0);
        config.setConnectionTimeout(250);
        return new HikariDataSource(config);
    }

    /**
     * A connection of {@code pool}, waiting as long as it takes: the pool's timeout is short, for the test that it is
     * exhausted, and a loaded machine may take longer than that to open a connection.
     */
    private static Connection borrow(HikariDataSource pool) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                return pool.getConnection();
            } catch (SQLTransientConnectionException slow) {
                if (System.nanoTime() > deadline) {
                    throw slow;
                }
            }
        }
    }

    /** The database session behind a connection: identical ids mean one physical connection. */
    private static long sessionId(Connection connection, TestDatabase.Kind kind) {
        String sql = switch (kind) {
            case POSTGRES -> "SELECT pg_backend_pid()";
            case MARIADB -> "SELECT CONNECTION_ID()";
            case H2 -> "SELECT SESSION_ID()";
        };
        try (Statement statement = connection.createStatement(); ResultSet rs = statement.executeQuery(sql)) {
            assertThat(rs.next()).isTrue();
            return rs.getLong(1);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Connection target(Connection view) {
        return ((ConnectionProxy) view).getTargetConnection();
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void handsOutTheSamePhysicalConnectionWhileItIsHealthy(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            Connection first = reserved.getConnection();
            long session = sessionId(first, kind);
            first.close();

            assertThat(first.isClosed()).as("close() of a view does nothing").isFalse();
            for (int i = 0; i < 3; i++) {
                Connection again = reserved.getConnection();
                assertThat(again).isNotSameAs(first);
                assertThat(target(again)).isSameAs(target(first));
                assertThat(sessionId(again, kind)).isEqualTo(session);
                again.close();
            }
            assertThat(new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void answersAtOnceWhileTheTargetPoolIsFullyCheckedOutByOtherThreads(TestDatabase.Kind kind) throws Exception {
        ExecutorService others = Executors.newFixedThreadPool(2);
        CountDownLatch release = new CountDownLatch(1);
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 3);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            OutboxSchemaInitializer.apply(pool);
            JdbcInstanceStore instances = new JdbcInstanceStore(reserved, DatabaseDialect.detect(pool));
            instances.register("node-a", "host-a", 8080);
            CountDownLatch borrowed = new CountDownLatch(2);
            for (int i = 0; i < 2; i++) {
                others.submit(() -> {
                    Connection connection = borrow(pool);
                    try {
                        borrowed.countDown();
                        release.await(30, TimeUnit.SECONDS);
                    } finally {
                        connection.close();
                    }
                    return null;
                });
            }
            try {
                assertThat(borrowed.await(90, TimeUnit.SECONDS)).isTrue();
                assertThatThrownBy(pool::getConnection).as("the pool is exhausted")
                        .isInstanceOf(SQLTransientConnectionException.class);

                assertTimeoutPreemptively(Duration.ofSeconds(2), () -> {
                    assertThat(new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
                    assertThat(instances.heartbeat("node-a")).isTrue();
                });
            } finally {
                release.countDown();
                others.shutdown();
                assertThat(others.awaitTermination(10, TimeUnit.SECONDS)).isTrue();
            }
        } finally {
            others.shutdownNow();
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void replacesAConnectionClosedUnderneathIt(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            Connection first = reserved.getConnection();
            target(first).close();
            assertThat(first.isClosed()).isTrue();

            Connection second = reserved.getConnection();

            assertThat(target(second)).isNotSameAs(target(first));
            assertThat(second.isClosed()).isFalse();
            assertThat(new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);
        }
    }

    /** Ends the database session behind {@code connection} from another connection of {@code pool}, and waits. */
    private static long endSession(Connection connection, HikariDataSource pool, TestDatabase.Kind kind) {
        long session = sessionId(connection, kind);
        if (kind == TestDatabase.Kind.MARIADB) {
            new JdbcTemplate(pool).execute("KILL " + session);
        } else {
            String end = kind == TestDatabase.Kind.POSTGRES ? "SELECT pg_terminate_backend(?)"
                    : "SELECT ABORT_SESSION(?)";
            assertThat(new JdbcTemplate(pool).queryForObject(end, Boolean.class, Math.toIntExact(session)))
                    .isTrue();
        }
        if (kind == TestDatabase.Kind.POSTGRES) {
            String sessions = "SELECT count(*) FROM pg_stat_activity WHERE pid = ?";
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10)).until(() ->
                    new JdbcTemplate(pool).queryForObject(sessions, Integer.class, Math.toIntExact(session)) == 0);
        }
        return session;
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void workOnAConnectionWhoseDatabaseSessionWasEndedRunsOnceMoreOnANewOne(TestDatabase.Kind kind)
            throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            long session = endSession(reserved.getConnection(), pool, kind);
            AtomicInteger runs = new AtomicInteger();

            Integer answer = reserved.retryingOnceIfBroken(() -> {
                runs.incrementAndGet();
                return new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class);
            });

            assertThat(answer).isEqualTo(1);
            assertThat(runs).as("failed on the ended session, then ran on a new one").hasValue(2);
            // Hikari skips validation within 500 ms of a connection's last use: the broken one must not come back.
            assertThat(sessionId(reserved.getConnection(), kind)).isNotEqualTo(session);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aFailureOnTheHeldConnectionMakesTheNextUseCheckItAndTakeAnother(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            long session = endSession(reserved.getConnection(), pool, kind);
            assertThatThrownBy(() -> new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class))
                    .isInstanceOf(RuntimeException.class);

            Connection next = reserved.getConnection();

            assertThat(sessionId(next, kind)).isNotEqualTo(session);
            assertThat(new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class)).isEqualTo(1);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aHealthyHeldConnectionIsHandedOutWithoutARoundTripToCheckIt(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(
                        countingValidations(pool))) {
            new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class);
            int afterFirst = validations.get();

            for (int i = 0; i < 5; i++) {
                assertThat(reserved.retryingOnceIfBroken(() ->
                        new JdbcTemplate(reserved).queryForObject("SELECT 1", Integer.class))).isEqualTo(1);
            }

            assertThat(validations.get()).as("isValid() calls after the connection was taken").isEqualTo(afterFirst);
        }
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void aFailureOnAConnectionThatStillAnswersIsThrownAsItIs(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2);
                ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool)) {
            long session = sessionId(reserved.getConnection(), kind);
            AtomicInteger runs = new AtomicInteger();

            assertThatThrownBy(() -> reserved.retryingOnceIfBroken(() -> {
                runs.incrementAndGet();
                return new JdbcTemplate(reserved).queryForObject("SELECT no_such_column FROM no_such_table",
                        Integer.class);
            })).isInstanceOf(BadSqlGrammarException.class);

            assertThat(runs).hasValue(1);
            assertThat(sessionId(reserved.getConnection(), kind)).as("kept").isEqualTo(session);
        }
    }

    private final AtomicInteger validations = new AtomicInteger();

    /** {@code pool}, its connections counting their isValid() calls in {@link #validations}. */
    private DataSource countingValidations(HikariDataSource pool) {
        return new DelegatingDataSource(pool) {
            @Override
            public Connection getConnection() throws SQLException {
                Connection connection = pool.getConnection();
                return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(),
                        new Class<?>[] {Connection.class}, (proxy, method, args) -> {
                            if (method.getName().equals("isValid")) {
                                validations.incrementAndGet();
                            }
                            try {
                                return method.invoke(connection, args);
                            } catch (InvocationTargetException e) {
                                throw e.getTargetException();
                            }
                        });
            }
        };
    }

    @ParameterizedTest
    @EnumSource(TestDatabase.Kind.class)
    void closeGivesTheConnectionBackAndEndsTheDataSource(TestDatabase.Kind kind) throws SQLException {
        try (TestDatabase database = TestDatabase.create(kind);
                HikariDataSource pool = pool(database, 2)) {
            ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(pool);
            Connection view = reserved.getConnection();
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isEqualTo(1);

            reserved.close();

            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).isZero();
            assertThat(view.isClosed()).isTrue();
            assertThatThrownBy(reserved::getConnection).isInstanceOf(SQLException.class)
                    .hasMessageContaining("closed");
            reserved.close();
        }
    }

    @Test
    void takesNoCredentials() {
        ReservedConnectionDataSource reserved = new ReservedConnectionDataSource(new HikariDataSource());

        assertThatThrownBy(() -> reserved.getConnection("user", "secret"))
                .isInstanceOf(SQLFeatureNotSupportedException.class);
        reserved.close();
    }
}
