package dev.outbox.benchmark.node;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.CallableStatement;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.datasource.DelegatingDataSource;

/**
 * The application's data source with every statement execution, commit and rollback counted in a {@link QueryCounter},
 * and connections borrowed counted too. Everything else goes straight to the real connection; {@code unwrap} reaches
 * the pool underneath. What the pool does below this wrapper is not seen: HikariCP checks a connection that has been
 * idle for more than 500 ms with {@code isValid()} when it is borrowed, which PostgreSQL's driver does with an empty
 * query, one round trip.
 */
final class CountingDataSource extends DelegatingDataSource {

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");

    private final QueryCounter counter;
    private final AtomicLong borrowed;

    CountingDataSource(DataSource target, QueryCounter counter, AtomicLong borrowed) {
        super(target);
        this.counter = counter;
        this.borrowed = borrowed;
    }

    @Override
    public Connection getConnection() throws SQLException {
        borrowed.incrementAndGet();
        return counting(obtainTargetDataSource().getConnection());
    }

    @Override
    public Connection getConnection(String username, String password) throws SQLException {
        borrowed.incrementAndGet();
        return counting(obtainTargetDataSource().getConnection(username, password));
    }

    private Connection counting(Connection connection) {
        return (Connection) Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(),
                new Class<?>[] {Connection.class}, new ConnectionHandler(connection));
    }

    private static @Nullable Object invoke(Object target, Method method, Object @Nullable [] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    private final class ConnectionHandler implements InvocationHandler {

        private final Connection target;

        ConnectionHandler(Connection target) {
            this.target = target;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            switch (method.getName()) {
                case "equals":
                    return args != null && proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "toString":
                    return "counting " + target;
                case "commit":
                    counter.count("COMMIT");
                    break;
                case "rollback":
                    counter.count("ROLLBACK");
                    break;
                default:
                    break;
            }
            Object result = CountingDataSource.invoke(target, method, args);
            if (result instanceof Statement statement && !method.getName().equals("unwrap")) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : null;
                Class<?> type = statement instanceof CallableStatement ? CallableStatement.class
                        : statement instanceof PreparedStatement ? PreparedStatement.class : Statement.class;
                return Proxy.newProxyInstance(CountingDataSource.class.getClassLoader(), new Class<?>[] {type},
                        new StatementHandler(statement, sql, (Connection) proxy));
            }
            return result;
        }
    }

    private final class StatementHandler implements InvocationHandler {

        private final Statement target;
        private final @Nullable String preparedSql;
        private final Connection connection;

        StatementHandler(Statement target, @Nullable String preparedSql, Connection connection) {
            this.target = target;
            this.preparedSql = preparedSql;
            this.connection = connection;
        }

        @Override
        public @Nullable Object invoke(Object proxy, Method method, Object @Nullable [] args) throws Throwable {
            String name = method.getName();
            switch (name) {
                case "equals":
                    return args != null && proxy == args[0];
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "getConnection":
                    return connection;
                default:
                    break;
            }
            if (EXECUTIONS.contains(name)) {
                String sql = args != null && args.length > 0 && args[0] instanceof String text ? text : preparedSql;
                String label = sql == null ? "(batch)" : counter.labelOf(sql);
                counter.count(name.contains("Batch") ? label + " (batch)" : label);
            }
            return CountingDataSource.invoke(target, method, args);
        }
    }
}
