package dev.outbox.jdbc;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLFeatureNotSupportedException;
import java.sql.SQLTransientConnectionException;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.jdbc.datasource.ConnectionProxy;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source that holds one connection taken from its target and hands out views of it whose {@code close()} does
 * nothing, so that its single user (the instance heartbeat) never waits for a busy application pool. A held connection
 * found closed or invalid ({@link Connection#isValid(int)}) is replaced from the target, then closed quietly (in that
 * order, so that a pool which skips validation on borrow, as Hikari does within 500 ms of a connection's last use,
 * cannot hand the broken one straight back); a replacement that is itself invalid is closed too and that call fails.
 *
 * <p>Thread-safe, but meant for one user at a time: every view is the same physical connection. {@link #close()}
 * closes the held connection (back to the target pool) and ends the use of this data source.
 */
public final class ReservedConnectionDataSource extends DelegatingDataSource implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ReservedConnectionDataSource.class);

    private static final int VALIDATION_TIMEOUT_SECONDS = 2;

    private @Nullable Connection held;
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
        if (connection != null && isHealthy(connection)) {
            return closeSuppressingView(connection);
        }
        held = null;
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

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        } catch (SQLException | RuntimeException e) {
            log.debug("Outbox: closing the reserved database connection failed", e);
        }
    }

    /** A proxy that ignores {@code close()}, is equal only to itself, and delegates everything else. */
    private static Connection closeSuppressingView(Connection target) {
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
                    try {
                        return method.invoke(target, args);
                    } catch (InvocationTargetException e) {
                        throw e.getTargetException();
                    }
                });
    }
}
