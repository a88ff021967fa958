package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.OutboxTables;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * A data source whose every connection holds the schema lock of one set of outbox tables ({@link SchemaLock}) from
 * when it is taken until it is closed; see {@link OutboxSchemaInitializer#serializingSchemaChanges}.
 */
final class SchemaLockingDataSource extends DelegatingDataSource implements AutoCloseable {

    private final OutboxTables tables;

    SchemaLockingDataSource(DataSource dataSource, OutboxTables tables) {
        super(dataSource);
        this.tables = tables;
    }

    @Override
    public Connection getConnection() throws SQLException {
        return locked(obtainTargetDataSource().getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        return locked(obtainTargetDataSource().getConnection(username, password));
    }

    private Connection locked(Connection connection) throws SQLException {
        SchemaLock lock;
        try {
            lock = SchemaLock.acquire(connection, tables);
        } catch (SQLException | RuntimeException e) {
            connection.close();
            throw e;
        }
        return (Connection) Proxy.newProxyInstance(SchemaLockingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (proxy, method, arguments) -> {
                    if (method.getName().equals("close") && method.getParameterCount() == 0) {
                        if (!connection.isClosed()) {
                            try {
                                lock.close();
                            } finally {
                                connection.close();
                            }
                        }
                        return null;
                    }
                    try {
                        return method.invoke(connection, arguments);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }

    /** Closes the target data source when it can be closed (a pool of Liquibase's own, say). */
    @Override
    public void close() throws Exception {
        if (obtainTargetDataSource() instanceof AutoCloseable closeable) {
            closeable.close();
        }
    }
}
