package dev.outbox.benchmark;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.SQLWarning;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import javax.sql.DataSource;
import org.springframework.jdbc.datasource.SingleConnectionDataSource;

/**
 * One connection on which PostgreSQL's {@code auto_explain} sends the plan of every statement, with its actual rows,
 * times and buffers ({@code EXPLAIN (ANALYZE, BUFFERS)}), to the client: the library's own statements, as it builds
 * and binds them, explained without copying their SQL. pgjdbc hands the plans over as warnings of the statement that
 * ran; {@link #plans()} collects them. {@code LOAD 'auto_explain'} needs a superuser; {@link #open} says why not.
 */
final class AutoExplain implements AutoCloseable {

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate");
    private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement");

    private final SingleConnectionDataSource connection;
    private final DataSource explaining;
    private final List<String> plans = new ArrayList<>();

    private AutoExplain(SingleConnectionDataSource connection) {
        this.connection = connection;
        this.explaining = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    Object result = invoke(method, connection, args);
                    return "getConnection".equals(method.getName()) ? connectionProxy((Connection) result) : result;
                });
    }

    /** A connection of its own to {@code url} with auto_explain on for every statement. */
    static AutoExplain open(String url, String user, String password) throws SQLException {
        SingleConnectionDataSource single = new SingleConnectionDataSource(
                BenchDatabase.connect(url, user, password), true);
        try (Statement setup = single.getConnection().createStatement()) {
            setup.execute("LOAD 'auto_explain'");
            setup.execute("SET auto_explain.log_min_duration = 0");
            setup.execute("SET auto_explain.log_analyze = on");
            setup.execute("SET auto_explain.log_buffers = on");
            setup.execute("SET auto_explain.log_nested_statements = on");
            setup.execute("SET client_min_messages = log");
        } catch (SQLException e) {
            single.destroy();
            throw e;
        }
        return new AutoExplain(single);
    }

    /** The data source whose statements are explained. */
    DataSource dataSource() {
        return explaining;
    }

    /** The plans sent since the last call, oldest first. */
    synchronized List<String> plans() {
        List<String> taken = List.copyOf(plans);
        plans.clear();
        return taken;
    }

    private Connection connectionProxy(Connection target) {
        return (Connection) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {Connection.class},
                (proxy, method, args) -> {
                    Object result = invoke(method, target, args);
                    if (STATEMENT_FACTORIES.contains(method.getName())) {
                        return statementProxy(method.getReturnType(), (Statement) result);
                    }
                    return result;
                });
    }

    private Object statementProxy(Class<?> type, Statement target) {
        return Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {type}, (proxy, method, args) -> {
            Object result = invoke(method, target, args);
            if (EXECUTIONS.contains(method.getName())) {
                collect(target.getWarnings());
                target.clearWarnings();
            }
            return result;
        });
    }

    private synchronized void collect(SQLWarning warnings) {
        for (SQLWarning warning = warnings; warning != null; warning = warning.getNextWarning()) {
            if (warning.getMessage() != null && warning.getMessage().contains("plan:")) {
                plans.add(warning.getMessage());
            }
        }
    }

    private static Object invoke(Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @Override
    public void close() {
        connection.destroy();
    }
}
