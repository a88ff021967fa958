package dev.outbox.benchmark;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.springframework.jdbc.core.JdbcTemplate;

/** Counts the NEW records once a second while a latency measurement runs. */
final class BacklogSampler implements AutoCloseable {

    private final JdbcTemplate jdbc;
    private final List<Long> samples = new ArrayList<>();
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(task -> {
        Thread thread = new Thread(task, "bench-backlog-sampler");
        thread.setDaemon(true);
        return thread;
    });
    private int failures;

    BacklogSampler(JdbcTemplate jdbc) {
        this.jdbc = jdbc;
    }

    void start() {
        timer.scheduleAtFixedRate(this::sample, 0, 1, TimeUnit.SECONDS);
    }

    private void sample() {
        try {
            Long count = jdbc.queryForObject("SELECT COUNT(*) FROM outbox_record WHERE status = 'NEW'", Long.class);
            synchronized (samples) {
                samples.add(count == null ? 0 : count);
            }
        } catch (RuntimeException e) {
            synchronized (samples) {
                failures++;
            }
        }
    }

    List<Long> samples() {
        synchronized (samples) {
            return List.copyOf(samples);
        }
    }

    long max() {
        return samples().stream().mapToLong(Long::longValue).max().orElse(0);
    }

    int failures() {
        synchronized (samples) {
            return failures;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
