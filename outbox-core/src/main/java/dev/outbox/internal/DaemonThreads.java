package dev.outbox.internal;

import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The outbox's background threads: daemons, so that an application that forgets to stop the outbox still exits, and
 * named {@code outbox-…}, so that a thread dump shows whose they are.
 */
public final class DaemonThreads {

    private DaemonThreads() {
    }

    /** Threads that all carry {@code name}, for an executor of one thread. */
    public static ThreadFactory named(String name) {
        return task -> daemon(new Thread(task, name), name);
    }

    /** Threads from {@code threads} (a virtual-thread factory, say) named {@code prefix-1}, {@code prefix-2}, … */
    public static ThreadFactory numbered(String prefix, ThreadFactory threads) {
        AtomicInteger count = new AtomicInteger();
        return task -> daemon(threads.newThread(task), prefix + "-" + count.incrementAndGet());
    }

    /** Numbered platform threads; see {@link #numbered(String, ThreadFactory)}. */
    public static ThreadFactory numbered(String prefix) {
        return numbered(prefix, Executors.defaultThreadFactory());
    }

    /** Starts {@code task} on a thread of its own. */
    public static Thread start(String name, Runnable task) {
        Thread thread = named(name).newThread(task);
        thread.start();
        return thread;
    }

    private static Thread daemon(Thread thread, String name) {
        thread.setName(name);
        thread.setDaemon(true);
        return thread;
    }
}
