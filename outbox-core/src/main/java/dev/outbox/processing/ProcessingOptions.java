package dev.outbox.processing;

import java.time.Duration;
import java.util.Objects;

/**
 * Immutable settings of an {@link OutboxProcessor}. Start from {@link #defaults()} and change with {@code withX}.
 * Every value is checked when set; a bad one throws {@link IllegalArgumentException} naming the property.
 */
public final class ProcessingOptions {

    /** {@code outbox.poll-interval}: the longest wait between two looks at the table when idle. */
    public static final Duration DEFAULT_POLL_INTERVAL = Duration.ofSeconds(2);
    /** {@code outbox.batch-size}: the most records fetched at once. */
    public static final int DEFAULT_BATCH_SIZE = 100;
    /** {@code outbox.processing.stop-on-first-failure}. */
    public static final boolean DEFAULT_STOP_ON_FIRST_FAILURE = true;
    /** {@code outbox.processing.concurrency}: aggregates handled in parallel. */
    public static final int DEFAULT_CONCURRENCY = 4;
    /** {@code outbox.retry.max-retries}: retries after the first attempt. */
    public static final int DEFAULT_MAX_RETRIES = 3;
    /** {@code outbox.instance.graceful-shutdown-timeout-seconds}: how long stopping waits for handlers in flight. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);
    /** {@code outbox.processing.delete-completed-records}: delete rows on completion instead of marking them. */
    public static final boolean DEFAULT_DELETE_COMPLETED_RECORDS = false;

    static final int MAX_BATCH_SIZE = 10_000;
    static final int MAX_CONCURRENCY = 1_000;

    private static final ProcessingOptions DEFAULTS = new ProcessingOptions(DEFAULT_POLL_INTERVAL, DEFAULT_BATCH_SIZE,
            DEFAULT_STOP_ON_FIRST_FAILURE, DEFAULT_CONCURRENCY, DEFAULT_MAX_RETRIES, DEFAULT_SHUTDOWN_TIMEOUT,
            DEFAULT_DELETE_COMPLETED_RECORDS);

    private final Duration pollInterval;
    private final int batchSize;
    private final boolean stopOnFirstFailure;
    private final int concurrency;
    private final int maxRetries;
    private final Duration shutdownTimeout;
    private final boolean deleteCompletedRecords;

    private ProcessingOptions(Duration pollInterval, int batchSize, boolean stopOnFirstFailure, int concurrency,
            int maxRetries, Duration shutdownTimeout, boolean deleteCompletedRecords) {
        this.pollInterval = positive("outbox.poll-interval", pollInterval);
        this.batchSize = inRange("outbox.batch-size", batchSize, 1, MAX_BATCH_SIZE);
        this.stopOnFirstFailure = stopOnFirstFailure;
        this.concurrency = inRange("outbox.processing.concurrency", concurrency, 1, MAX_CONCURRENCY);
        this.maxRetries = inRange("outbox.retry.max-retries", maxRetries, 0, Integer.MAX_VALUE - 1);
        this.shutdownTimeout = positive("outbox.instance.graceful-shutdown-timeout-seconds", shutdownTimeout);
        this.deleteCompletedRecords = deleteCompletedRecords;
    }

    public static ProcessingOptions defaults() {
        return DEFAULTS;
    }

    public Duration pollInterval() {
        return pollInterval;
    }

    public int batchSize() {
        return batchSize;
    }

    public boolean stopOnFirstFailure() {
        return stopOnFirstFailure;
    }

    public int concurrency() {
        return concurrency;
    }

    public int maxRetries() {
        return maxRetries;
    }

    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** Whether completed records are deleted rather than kept as COMPLETED. */
    public boolean deleteCompletedRecords() {
        return deleteCompletedRecords;
    }

    public ProcessingOptions withDeleteCompletedRecords(boolean deleteCompletedRecords) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withPollInterval(Duration pollInterval) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withBatchSize(int batchSize) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withStopOnFirstFailure(boolean stopOnFirstFailure) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withConcurrency(int concurrency) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withMaxRetries(int maxRetries) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    public ProcessingOptions withShutdownTimeout(Duration shutdownTimeout) {
        return new ProcessingOptions(pollInterval, batchSize, stopOnFirstFailure, concurrency, maxRetries,
                shutdownTimeout, deleteCompletedRecords);
    }

    @Override
    public String toString() {
        return "pollInterval=" + pollInterval + ", batchSize=" + batchSize + ", stopOnFirstFailure="
                + stopOnFirstFailure + ", concurrency=" + concurrency + ", maxRetries=" + maxRetries
                + ", shutdownTimeout=" + shutdownTimeout + ", deleteCompletedRecords=" + deleteCompletedRecords;
    }

    private static Duration positive(String property, Duration value) {
        Objects.requireNonNull(value, property + " must not be null");
        if (value.isNegative() || value.isZero()) {
            throw new IllegalArgumentException(property + " must be positive but was " + value);
        }
        return value;
    }

    private static int inRange(String property, int value, int min, int max) {
        if (value < min || value > max) {
            throw new IllegalArgumentException(
                    property + " must be between " + min + " and " + max + " but was " + value);
        }
        return value;
    }
}
