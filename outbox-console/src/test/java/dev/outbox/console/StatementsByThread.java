package dev.outbox.console;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.Statement;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Counts the SQL statements the application runs, by the name of the thread that runs them: the application's
 * {@link DataSource} is wrapped so that every statement it hands out counts each execution. The page's requests run
 * on the web server's threads, the monitor's refresh on a thread of its own, so the two can be told apart.
 */
final class StatementsByThread implements BeanPostProcessor {

    private static final Set<String> EXECUTIONS = Set.of("execute", "executeQuery", "executeUpdate",
            "executeLargeUpdate", "executeBatch", "executeLargeBatch");
    private static final Set<String> STATEMENT_FACTORIES = Set.of("createStatement", "prepareStatement",
            "prepareCall");

    private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource) {
            return proxy(DataSource.class, dataSource, (target, method, args) -> {
                Object result = method.invoke(target, args);
                return "getConnection".equals(method.getName())
                        ? proxy(Connection.class, (Connection) result, this::connectionCall) : result;
            });
        }
        return bean;
    }

    /** The statements counted so far, by thread name. */
    Map<String, Long> snapshot() {
        Map<String, Long> copy = new TreeMap<>();
        counts.forEach((thread, count) -> copy.put(thread, count.get()));
        return copy;
    }

    private Object connectionCall(Object target, Method method, Object[] args) throws Throwable {
        Object result = method.invoke(target, args);
        if (STATEMENT_FACTORIES.contains(method.getName()) && result instanceof Statement statement) {
            Class<?> type = method.getReturnType();
            return proxy(type, statement, (inner, call, callArgs) -> {
                if (EXECUTIONS.contains(call.getName())) {
                    counts.computeIfAbsent(Thread.currentThread().getName(), name -> new AtomicLong())
                            .incrementAndGet();
                }
                return call.invoke(inner, callArgs);
            });
        }
        return result;
    }

    /** A call handler that gets the target, and throws what the target threw. */
    private interface Forwarding {
        Object call(Object target, Method method, Object[] args) throws Throwable;
    }

    private static <T> Object proxy(Class<?> type, T target, Forwarding forwarding) {
        InvocationHandler handler = (proxy, method, args) -> {
            try {
                return forwarding.call(target, method, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return Proxy.newProxyInstance(StatementsByThread.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
