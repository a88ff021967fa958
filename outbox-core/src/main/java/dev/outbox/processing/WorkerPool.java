package dev.outbox.processing;

import dev.outbox.internal.DaemonThreads;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import org.jspecify.annotations.Nullable;

/**
 * The worker threads that handle lanes, at most {@code concurrency} at once. Created on first use, and replaced after
 * a stop gave up on the handlers still running, so that a restarted processor has threads that are not interrupted.
 */
final class WorkerPool {

    private final int concurrency;
    private final ThreadFactory threads;
    private @Nullable ExecutorService pool;
    private boolean closed;

    /** @param threads where threads come from (a virtual-thread factory, say); they are named outbox-worker-N */
    WorkerPool(int concurrency, ThreadFactory threads) {
        this.concurrency = concurrency;
        this.threads = DaemonThreads.numbered("outbox-worker", threads);
    }

    /** The pool work is submitted to now. */
    synchronized ExecutorService current() {
        if (closed) {
            throw new IllegalStateException("OutboxProcessor is closed");
        }
        if (pool == null) {
            pool = Executors.newFixedThreadPool(concurrency, threads);
        }
        return pool;
    }

    /** Starts the worker threads now rather than at the first records, so that these do not wait for them. */
    void prestart() {
        if (current() instanceof java.util.concurrent.ThreadPoolExecutor executor) {
            executor.prestartAllCoreThreads();
        }
    }

    /** Interrupts the running handlers and drops the pool; returns the work that never started. */
    List<Runnable> interruptAll() {
        ExecutorService interrupted;
        synchronized (this) {
            interrupted = pool;
            pool = null;
        }
        return interrupted == null ? List.of() : interrupted.shutdownNow();
    }

    /** Lets running work finish and takes no more. */
    synchronized void close() {
        closed = true;
        if (pool != null) {
            pool.shutdown();
            pool = null;
        }
    }
}
