package dev.outbox.boot.cluster;

import java.util.concurrent.atomic.AtomicReference;

/**
 * Keeps records flowing for as long as a scenario needs, whatever the machine's load: while it runs, a round of one
 * record for each of {@code aggregates} aggregates is inserted whenever fewer than that many are pending. Closing it
 * stops the insertions and rethrows what went wrong in them.
 */
final class BacklogFeeder implements AutoCloseable {

    private static final long CHECK_INTERVAL_MILLIS = 200;

    private final Thread thread;
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private volatile boolean running = true;

    private BacklogFeeder(ClusterHarness cluster, int aggregates) {
        this.thread = new Thread(() -> feed(cluster, aggregates), "backlog-feeder");
        thread.setDaemon(true);
    }

    static BacklogFeeder start(ClusterHarness cluster, int aggregates) {
        BacklogFeeder feeder = new BacklogFeeder(cluster, aggregates);
        feeder.thread.start();
        return feeder;
    }

    private void feed(ClusterHarness cluster, int aggregates) {
        try {
            while (running) {
                if (cluster.statusCounts().getOrDefault("NEW", 0L) < aggregates) {
                    cluster.insertRecords(aggregates, 1);
                }
                Thread.sleep(CHECK_INTERVAL_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException | Error e) {
            failure.set(e);
        }
    }

    /** Stops feeding; after it returns, every insertion is done and visible to the caller's thread. */
    @Override
    public void close() {
        running = false;
        try {
            thread.join();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while stopping the backlog feeder", e);
        }
        if (failure.get() != null) {
            throw new IllegalStateException("The backlog feeder failed", failure.get());
        }
    }
}
