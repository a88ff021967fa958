package dev.outbox.benchmark;

import dev.outbox.OutboxRecord;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Commits one record per transaction at a fixed rate: a ticker thread schedules record {@code i} at
 * {@code start + i / rate} ({@code scheduleAtFixedRate}) and hands it to one of {@link #writerThreads} writer threads,
 * chosen by the record's aggregate, so that a slow commit delays neither the schedule nor other aggregates, while the
 * records of one aggregate are still written one after another, in order. Right after {@code commit()} returns, the
 * writer notes the {@link BenchClock} time: the commit instant of the record.
 */
final class LatencyProducer {

    /**
     * One writer thread per 250 records/s, 4 to 8: a one-record transaction waits about a millisecond for its commit's
     * flush on this kind of machine, so four threads fall behind at 2,000/s; more threads share the flushes (group
     * commit), and 8 stays within the writer's connection pool of 10.
     */
    static int writerThreads(int rate) {
        return Math.max(4, Math.min(8, rate / 250));
    }

    /** Per record index: id, commit instant, and how late the commit was against the schedule (all microseconds). */
    record Produced(String[] ids, long[] committedAtMicros, long[] lateByMicros, long firstScheduledMicros) {
    }

    private final RecordWriter writer;
    private final int rate;
    private final int seconds;
    private final int aggregates;

    LatencyProducer(RecordWriter writer, int rate, int seconds, int aggregates) {
        this.writer = writer;
        this.rate = rate;
        this.seconds = seconds;
        this.aggregates = aggregates;
    }

    int total() {
        return Math.multiplyExact(rate, seconds);
    }

    Produced run() throws InterruptedException {
        int total = total();
        String[] ids = new String[total];
        long[] committedAt = new long[total];
        long[] lateBy = new long[total];
        long periodNanos = Math.max(1, 1_000_000_000L / rate);
        int threads = writerThreads(rate);
        ExecutorService[] writers = new ExecutorService[threads];
        for (int t = 0; t < threads; t++) {
            writers[t] = Executors.newSingleThreadExecutor(daemon("bench-producer-" + (t + 1)));
        }
        ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor(daemon("bench-ticker"));
        CountDownLatch done = new CountDownLatch(total);
        AtomicInteger next = new AtomicInteger();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long startNanos = System.nanoTime() + 20_000_000L;
        long startMicros = BenchClock.nowMicros() + 20_000L;
        try {
            ScheduledFuture<?> ticks = ticker.scheduleAtFixedRate(() -> {
                int index = next.getAndIncrement();
                if (index >= total) {
                    return;
                }
                long scheduledNanos = startNanos + index * periodNanos;
                int aggregate = index % aggregates;
                writers[aggregate % threads].execute(() -> {
                    try {
                        OutboxRecord record = writer.writeOne(index, aggregates);
                        committedAt[index] = BenchClock.nowMicros();
                        lateBy[index] = (System.nanoTime() - scheduledNanos) / 1_000;
                        ids[index] = record.getId();
                    } catch (Throwable e) {
                        failure.compareAndSet(null, e);
                    } finally {
                        done.countDown();
                    }
                });
            }, startNanos - System.nanoTime(), periodNanos, TimeUnit.NANOSECONDS);
            boolean finished = done.await(seconds + 120L, TimeUnit.SECONDS);
            ticks.cancel(false);
            if (failure.get() != null) {
                throw new IllegalStateException("the producer failed to write a record: " + failure.get(),
                        failure.get());
            }
            if (!finished) {
                throw new IllegalStateException("the producer wrote " + (total - done.getCount()) + " of " + total
                        + " records within " + (seconds + 120) + " s");
            }
            return new Produced(ids, committedAt, lateBy, startMicros);
        } finally {
            ticker.shutdownNow();
            for (ExecutorService executor : writers) {
                executor.shutdownNow();
            }
            for (ExecutorService executor : writers) {
                executor.awaitTermination(30, TimeUnit.SECONDS);
            }
        }
    }

    private static java.util.concurrent.ThreadFactory daemon(String name) {
        return task -> {
            Thread thread = new Thread(task, name);
            thread.setDaemon(true);
            return thread;
        };
    }
}
