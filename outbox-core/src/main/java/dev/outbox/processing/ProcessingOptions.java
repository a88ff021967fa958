package dev.outbox.processing;

import dev.outbox.internal.Checks;
import java.time.Duration;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

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
    /** {@code outbox.instance.graceful-shutdown-timeout-seconds}: how long stopping waits for handlers in flight. */
    public static final Duration DEFAULT_SHUTDOWN_TIMEOUT = Duration.ofSeconds(15);
    /** {@code outbox.processing.delete-completed-records}: delete rows on completion instead of marking them. */
    public static final boolean DEFAULT_DELETE_COMPLETED_RECORDS = false;

    /**
     * {@code outbox.processing.max-deferral}: how long a record no handler of this instance takes may wait for an
     * instance that has one, from its first deferral; long enough for a slow rolling deploy.
     */
    public static final Duration DEFAULT_MAX_DEFERRAL = Duration.ofHours(24);
    /**
     * {@code outbox.processing.deferral-interval}: how soon a deferred record is due again for an instance that has its
     * handler, and how often an instance looks for records of handlers it lacks.
     */
    public static final Duration DEFAULT_DEFERRAL_INTERVAL = Duration.ofSeconds(5);

    /**
     * {@code outbox.processing.transaction-group-size}: the most records one transaction of transactional handlers
     * takes.
     */
    public static final int DEFAULT_TRANSACTION_GROUP_SIZE = 100;

    static final int MAX_BATCH_SIZE = 10_000;
    static final int MAX_TRANSACTION_GROUP_SIZE = 1_000;
    static final int MAX_CONCURRENCY = 1_000;

    private static final ProcessingOptions DEFAULTS = new ProcessingOptions(new Values());

    private final Duration pollInterval;
    private final int batchSize;
    private final boolean stopOnFirstFailure;
    private final int concurrency;
    private final Duration shutdownTimeout;
    private final boolean deleteCompletedRecords;
    private final @Nullable Duration handlerTimeout;
    private final Duration maxDeferral;
    private final Duration deferralInterval;
    private final int transactionGroupSize;

    private ProcessingOptions(Values values) {
        this.pollInterval = Checks.positive("outbox.poll-interval", values.pollInterval);
        this.batchSize = Checks.inRange("outbox.batch-size", values.batchSize, 1, MAX_BATCH_SIZE);
        this.stopOnFirstFailure = values.stopOnFirstFailure;
        this.concurrency = Checks.inRange("outbox.processing.concurrency", values.concurrency, 1, MAX_CONCURRENCY);
        this.shutdownTimeout = Checks.positive("outbox.instance.graceful-shutdown-timeout-seconds",
                values.shutdownTimeout);
        this.deleteCompletedRecords = values.deleteCompletedRecords;
        this.handlerTimeout = values.handlerTimeout == null ? null
                : Checks.positive("outbox.processing.handler-timeout", values.handlerTimeout);
        this.maxDeferral = Checks.notNegative("outbox.processing.max-deferral", values.maxDeferral);
        this.deferralInterval = Checks.positive("outbox.processing.deferral-interval", values.deferralInterval);
        this.transactionGroupSize = Checks.inRange("outbox.processing.transaction-group-size",
                values.transactionGroupSize, 1, MAX_TRANSACTION_GROUP_SIZE);
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

    public Duration shutdownTimeout() {
        return shutdownTimeout;
    }

    /** Whether completed records are deleted rather than kept as COMPLETED. */
    public boolean deleteCompletedRecords() {
        return deleteCompletedRecords;
    }

    /**
     * {@code outbox.processing.handler-timeout}: how long one handler call may take before its thread is interrupted
     * and the attempt counts as failed; empty (the default) for no limit.
     */
    public Optional<Duration> handlerTimeout() {
        return Optional.ofNullable(handlerTimeout);
    }

    /**
     * {@code outbox.processing.max-deferral}: a record that no handler of this instance takes (see
     * {@link HandlerNotDeployedException}) waits for an instance that has one this long, counted from its first
     * deferral (not from its creation: a record scheduled ahead, or retried by an operator, may be old by then); then
     * it fails. Zero fails such records at once.
     */
    public Duration maxDeferral() {
        return maxDeferral;
    }

    /**
     * {@code outbox.processing.deferral-interval}: how long a deferred record waits before it is due again for an
     * instance that has its handler, and how often an instance looks for records of the handlers it lacks (their first
     * deferral, and those whose maximum deferral has passed).
     */
    public Duration deferralInterval() {
        return deferralInterval;
    }

    /**
     * {@code outbox.processing.transaction-group-size}: the most records of transactional handlers run in one
     * transaction with their completions. A larger group commits less often, and a failure in it makes more handlers
     * run again; a lane longer than the group is cut at it, the rest left for the next fetch.
     */
    public int transactionGroupSize() {
        return transactionGroupSize;
    }

    public ProcessingOptions withTransactionGroupSize(int transactionGroupSize) {
        return with(values -> values.transactionGroupSize = transactionGroupSize);
    }

    public ProcessingOptions withMaxDeferral(Duration maxDeferral) {
        return with(values -> values.maxDeferral = maxDeferral);
    }

    public ProcessingOptions withDeferralInterval(Duration deferralInterval) {
        return with(values -> values.deferralInterval = deferralInterval);
    }

    public ProcessingOptions withDeleteCompletedRecords(boolean deleteCompletedRecords) {
        return with(values -> values.deleteCompletedRecords = deleteCompletedRecords);
    }

    public ProcessingOptions withPollInterval(Duration pollInterval) {
        return with(values -> values.pollInterval = pollInterval);
    }

    public ProcessingOptions withBatchSize(int batchSize) {
        return with(values -> values.batchSize = batchSize);
    }

    public ProcessingOptions withStopOnFirstFailure(boolean stopOnFirstFailure) {
        return with(values -> values.stopOnFirstFailure = stopOnFirstFailure);
    }

    public ProcessingOptions withConcurrency(int concurrency) {
        return with(values -> values.concurrency = concurrency);
    }

    public ProcessingOptions withShutdownTimeout(Duration shutdownTimeout) {
        return with(values -> values.shutdownTimeout = shutdownTimeout);
    }

    /** A limit on each handler call; null for none. See {@link #handlerTimeout()}. */
    public ProcessingOptions withHandlerTimeout(@Nullable Duration handlerTimeout) {
        return with(values -> values.handlerTimeout = handlerTimeout);
    }

    /** A copy with one value changed, checked like every other. */
    private ProcessingOptions with(Consumer<Values> change) {
        Values values = new Values();
        values.pollInterval = pollInterval;
        values.batchSize = batchSize;
        values.stopOnFirstFailure = stopOnFirstFailure;
        values.concurrency = concurrency;
        values.shutdownTimeout = shutdownTimeout;
        values.deleteCompletedRecords = deleteCompletedRecords;
        values.handlerTimeout = handlerTimeout;
        values.maxDeferral = maxDeferral;
        values.deferralInterval = deferralInterval;
        values.transactionGroupSize = transactionGroupSize;
        change.accept(values);
        return new ProcessingOptions(values);
    }

    /** The unchecked values an instance is built from, starting as the defaults. */
    private static final class Values {
        Duration pollInterval = DEFAULT_POLL_INTERVAL;
        int batchSize = DEFAULT_BATCH_SIZE;
        boolean stopOnFirstFailure = DEFAULT_STOP_ON_FIRST_FAILURE;
        int concurrency = DEFAULT_CONCURRENCY;
        Duration shutdownTimeout = DEFAULT_SHUTDOWN_TIMEOUT;
        boolean deleteCompletedRecords = DEFAULT_DELETE_COMPLETED_RECORDS;
        @Nullable Duration handlerTimeout;
        @Nullable Duration maxDeferral = DEFAULT_MAX_DEFERRAL;
        @Nullable Duration deferralInterval = DEFAULT_DEFERRAL_INTERVAL;
        int transactionGroupSize = DEFAULT_TRANSACTION_GROUP_SIZE;
    }

    @Override
    public String toString() {
        return "pollInterval=" + pollInterval + ", batchSize=" + batchSize + ", stopOnFirstFailure="
                + stopOnFirstFailure + ", concurrency=" + concurrency + ", shutdownTimeout=" + shutdownTimeout
                + ", deleteCompletedRecords=" + deleteCompletedRecords
                + (handlerTimeout == null ? "" : ", handlerTimeout=" + handlerTimeout) + ", maxDeferral="
                + maxDeferral + ", deferralInterval=" + deferralInterval + ", transactionGroupSize="
                + transactionGroupSize;
    }
}
