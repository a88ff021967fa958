package dev.outbox.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import java.sql.Statement;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source that holds one connection taken from its target and hands out views of it whose {@code close()} does
 * nothing, so that its single user (the instance heartbeat) never waits for a busy application pool.
 *
 * <p>The held connection is not checked with a round trip before each use: on PostgreSQL {@link Connection#isValid}
 * is an empty query and counts as a transaction, as many as the heartbeats themselves. The use is the check: a
 * connection a view saw fail is validated ({@link Connection#isValid(int)}) before it is handed out again, and one
 * found closed or invalid is replaced from the target, then closed quietly (in that order, so that a pool which skips
 * validation on borrow, as Hikari does within 500 ms of a connection's last use, cannot hand the broken one straight
 * back); a replacement that is itself invalid is closed too and that call fails. Work run through
 * {@link #retryingOnceIfBroken} that fails on a held connection which then turns out broken (its session was ended,
 * the database restarted) runs once more, on a new one.
 *
 * <p>Thread-safe, but meant for one user at a time: every view is the same physical connection. {@link #close()}
 * closes the held connection (back to the target pool) and ends the use of this data source.
 */
public final class ReservedConnectionDataSource extends DelegatingDataSource implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReservedConnectionDataSource.class);

    private static final int VALIDATION_TIMEOUT_SECONDS = 2;

    private @Nullable Connection held;
    /** Whether a view of the held connection saw a failure since it was last validated. */
    private volatile boolean suspect;
    private boolean closed;

    public ReservedConnectionDataSource(DataSource targetDataSource) {
        super(targetDataSource);
    }

    /** The held connection, replaced first if it is broken; {@code close()} on the returned view does nothing. */
    @Override
    public synchronized Connection getConnection() throws SQLException {
        if (closed) {
            throw new SQLException("Outbox: the reserved connection data source is closed");
        }
        Connection connection = held;
        if (connection != null && (suspect ? isHealthy(connection) : !isClosed(connection))) {
            suspect = false;
            return closeSuppressingView(connection);
        }
        held = null;
        suspect = false;
        if (connection != null) {
            log.warn("Outbox: the reserved database connection is broken; taking a new one");
        }
        Connection replacement;
        try {
            replacement = takeValidConnection();
        } finally {
            if (connection != null) {
                closeQuietly(connection);
            }
        }
        held = replacement;
        return closeSuppressingView(replacement);
    }

    /**
     * Runs {@code work}, which uses this data source; when it fails and the connection it found held is broken now,
     * runs it once more on a new one. Failures on a connection that still answers (a constraint, a timeout) are thrown
     * as they are.
     */
    public <T> T retryingOnceIfBroken(Supplier<T> work) {
        Connection before;
        synchronized (this) {
            before = held;
        }
        try {
            return work.get();
        } catch (RuntimeException first) {
            if (before == null || !heldAndBroken(before)) {
                throw first;
            }
            log.info("Outbox: the reserved database connection was broken ({}); trying once more on a new one",
                    first.toString());
            try {
                return work.get();
            } catch (RuntimeException second) {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private synchronized boolean heldAndBroken(Connection connection) {
        if (held != connection || isHealthy(connection)) {
            return false;
        }
        suspect = true; // the next getConnection() replaces it
        return true;
    }

    /** Called while a broken one is still out, so a pool skipping validation on borrow cannot hand it straight back. */
    private Connection takeValidConnection() throws SQLException {
        Connection connection = obtainTargetDataSource().getConnection();
        if (!isHealthy(connection)) {
            closeQuietly(connection);
            throw new SQLTransientConnectionException(
                    "Outbox: the data source handed out a broken connection; the next call takes another");
        }
        return connection;
    }

    /** Not supported: the reserved connection is the target's default one. */
    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        throw new SQLFeatureNotSupportedException("Outbox: a reserved connection takes no credentials");
    }

    /** Closes the held connection; later {@link #getConnection()} calls fail. */
    @Override
    public synchronized void close() {
        closed = true;
        if (held != null) {
            closeQuietly(held);
            held = null;
        }
    }

    private static boolean isHealthy(Connection connection) {
        try {
            return !connection.isClosed() && connection.isValid(VALIDATION_TIMEOUT_SECONDS);
        } catch (SQLException e) {
            return false;
        }
    }

    /** The statement as it is, watched: a failure makes the held connection suspect. */
    private Statement watchedStatement(Statement statement, Method createdBy) {
        Class<?> type = createdBy.getReturnType().isInterface() ? createdBy.getReturnType() : Statement.class;
        return (Statement) Proxy.newProxyInstance(ReservedConnectionDataSource.class.getClassLoader(),
                new Class<?>[] {type}, (proxy, method, args) -> switch (method.getName()) {
                    case "equals" -> proxy == args[0];
                    case "hashCode" -> System.identityHashCode(proxy);
                    default -> invokeWatched(statement, method, args);
                });
    }

    private @Nullable Object invokeWatched(Object target, Method method, Object @Nullable [] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            if (e.getTargetException() instanceof SQLException) {
                suspect = true;
            }
            throw e.getTargetException();
        }
    }

    private static boolean isClosed(Connection connection) {
        try {
            return connection.isClosed();
        } catch (SQLException e) {
            return true;
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("Outbox: closing the reserved database connection failed", e);
        }
    }

    /**
     * A proxy that ignores {@code close()}, is equal only to itself, and delegates everything else; a failure of the
     * connection or of a statement it made makes the connection suspect.
     */
    private Connection closeSuppressingView(Connection target) {
        return (Connection) Proxy.newProxyInstance(ConnectionProxy.class.getClassLoader(),
                new Class<?>[] {ConnectionProxy.class}, (proxy, method, args) -> {
                    switch (method.getName()) {
                        case "close":
                            return null;
                        case "getTargetConnection":
                            return target;
                        case "equals":
                            return proxy == args[0];
                        case "hashCode":
                            return System.identityHashCode(proxy);
                        case "toString":
                            return "Reserved view of " + target;
                        case "unwrap":
                            if (((Class<?>) args[0]).isInstance(proxy)) {
                                return proxy;
                            }
                            break;
                        case "isWrapperFor":
                            if (((Class<?>) args[0]).isInstance(proxy)) {
                                return true;
                            }
                            break;
                        default:
                            break;
                    }
                    Object result = invokeWatched(target, method, args);
                    return result instanceof Statement statement ? watchedStatement(statement, method) : result;
                });
    }
}
