package dev.outbox.testkit;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A database that stops answering, in-JVM: stores wrapped by {@link #wrap} pass every call through until
 * {@link #begin()}; from then on every call blocks, interrupts ignored (as a JDBC call on a cut connection does), until
 * {@link #end()}. A caller that returns while the hang lasts therefore never waited on the database.
 */
public final class DatabaseHang {

    private volatile CountDownLatch over = new CountDownLatch(0);
    private final AtomicInteger blocked = new AtomicInteger();

    /** From now on every call blocks until {@link #end()}. */
    public void begin() {
        over = new CountDownLatch(1);
    }

    /** The database answers again: blocked calls go on. */
    public void end() {
        over.countDown();
    }

    /** Calls blocked now. */
    public int blockedCalls() {
        return blocked.get();
    }

    /** {@code delegate} as each of {@code interfaces}, hanging while the hang lasts. */
    @SuppressWarnings("unchecked")
    public <T> T wrap(T delegate, Class<?>... interfaces) {
        InvocationHandler handler = (proxy, method, args) -> {
            if (method.getDeclaringClass() != Object.class) {
                awaitAnswer();
            }
            try {
                return method.invoke(delegate, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        };
        return (T) Proxy.newProxyInstance(DatabaseHang.class.getClassLoader(), interfaces, handler);
    }

    private void awaitAnswer() {
        CountDownLatch current = over;
        if (current.getCount() == 0) {
            return;
        }
        blocked.incrementAndGet();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    current.await();
                    break;
                } catch (InterruptedException e) {
                    interrupted = true; // a cut connection ignores interrupts too
                }
            }
        } finally {
            blocked.decrementAndGet();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
