package dev.outbox.boot;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import javax.sql.DataSource;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Wraps the application's DataSource and notes the SQL of every statement prepared or executed by chosen threads, so a
 * test can count what one action cost the database while background threads (heartbeats, polling) go on.
 */
final class StatementRecorder implements BeanPostProcessor {

    private final List<String> statements = new CopyOnWriteArrayList<>();
    private volatile Predicate<Thread> watched = Predicate.isEqual(Thread.currentThread());

    /** Notes statements of the calling thread from now on, forgetting earlier ones. */
    void watchCurrentThread() {
        Thread current = Thread.currentThread();
        watch(thread -> thread == current);
    }

    /** Notes statements of the threads named {@code name} from now on, forgetting earlier ones. */
    void watchThreadsNamed(String name) {
        watch(thread -> thread.getName().equals(name));
    }

    private void watch(Predicate<Thread> threads) {
        statements.clear();
        watched = threads;
    }

    List<String> statements() {
        return List.copyOf(statements);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DataSource dataSource) {
            return proxy(DataSource.class, dataSource, (target, method, args) -> {
                Object result = invoke(method, dataSource, args);
                return result instanceof Connection connection ? connection(connection) : result;
            });
        }
        return bean;
    }

    private Connection connection(Connection connection) {
        return proxy(Connection.class, connection, (target, method, args) -> {
            if (method.getName().startsWith("prepare") && args != null && args[0] instanceof String sql) {
                note(sql);
            }
            Object result = invoke(method, connection, args);
            if (result instanceof java.sql.Statement statement && !(result instanceof java.sql.PreparedStatement)) {
                return proxy(java.sql.Statement.class, statement, (t, m, a) -> {
                    if (m.getName().startsWith("execute") && a != null && a.length > 0 && a[0] instanceof String sql) {
                        note(sql);
                    }
                    return invoke(m, statement, a);
                });
            }
            return result;
        });
    }

    private void note(String sql) {
        if (watched.test(Thread.currentThread())) {
            statements.add(sql.replaceAll("\\s+", " ").strip());
        }
    }

    private static Object invoke(java.lang.reflect.Method method, Object target, Object[] args) throws Throwable {
        try {
            return method.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getCause();
        }
    }

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, T target, InvocationHandler handler) {
        return (T) Proxy.newProxyInstance(StatementRecorder.class.getClassLoader(), new Class<?>[] {type}, handler);
    }
}
