package dev.outbox.boot;

import dev.outbox.cluster.ClusterTimings;
import dev.outbox.context.MdcRecordContext;
import dev.outbox.internal.Checks;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.processing.ProcessingOptions;
import dev.outbox.retention.OutboxPurger;
import dev.outbox.retry.OutboxRetryPolicy;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.RecordContext;
import java.time.Duration;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.boot.convert.DurationUnit;
import org.springframework.util.unit.DataSize;

/**
 * Configuration of the outbox, under {@code outbox.*}. Durations given as plain numbers are milliseconds
 * ({@code poll-interval: 2000}); units are accepted too ({@code 2s}). Values are checked at startup and a bad one
 * stops the application with a message naming the property and its limit.
 *
 * @param enabled master switch of the outbox auto-configuration
 * @param pollInterval longest wait between two looks for due records when idle; a transaction of this instance that
 *     commits records wakes the processor at once
 * @param batchSize most records fetched and dispatched in one pass (1..10000)
 * @param maxPayloadSize largest payload accepted, in UTF-8 bytes; larger records are rejected before anything is
 *     written
 * @param listenNotify on PostgreSQL, wake the instance owning a partition with LISTEN/NOTIFY when another instance
 *     commits records for it; polling stays the fallback
 * @param schema the schema (on MariaDB and MySQL, the database) of the outbox tables; unset for the connection's
 *     default schema. It must exist. Lower-case letters, digits and underscores, starting with a letter, at most 32
 * @param tablePrefix put before {@code record}, {@code instance} and {@code partition} to name the outbox tables;
 *     may be empty. Lower-case letters, digits and underscores, starting with a letter, at most 24
 * @param schemaInitialization creation of the outbox tables at startup
 * @param processing how records are processed
 * @param retry what happens when a handler fails
 * @param instance this application instance
 * @param metrics what outbox-metrics publishes
 * @param purge the scheduled deletion of finished records
 * @param context what travels with a record from its writer to its handler
 * @param outboxes further outboxes, by name, each on a DataSource of its own (one per database whose transactions
 *     write records); every setting not among theirs is shared with the default outbox
 */
@ConfigurationProperties("outbox")
public record OutboxProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("2s") @DurationUnit(ChronoUnit.MILLIS) Duration pollInterval,
        @DefaultValue("100") int batchSize,
        @DefaultValue("1MB") DataSize maxPayloadSize,
        @DefaultValue("true") boolean listenNotify,
        @Nullable String schema,
        @DefaultValue(OutboxTables.DEFAULT_PREFIX) String tablePrefix,
        @DefaultValue SchemaInitialization schemaInitialization,
        @DefaultValue Processing processing,
        @DefaultValue Retry retry,
        @DefaultValue Instance instance,
        @DefaultValue Metrics metrics,
        @DefaultValue Purge purge,
        @DefaultValue Context context,
        @DefaultValue Map<String, Named> outboxes) {

    public OutboxProperties {
        // Check eagerly, so a bad value fails the binding of outbox.* with the property named.
        processingOptions(pollInterval, batchSize, processing, instance);
        tables(schema, tablePrefix);
        if (maxPayloadSize.toBytes() < 1 || maxPayloadSize.toBytes() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("outbox.max-payload-size must be between 1B and "
                    + Integer.MAX_VALUE + "B but was " + maxPayloadSize);
        }
        // Every stock policy is checked, the unused ones too: a wrong value is wrong wherever it is.
        retry.basePolicy(RetryPolicyType.FIXED);
        retry.basePolicy(RetryPolicyType.EXPONENTIAL);
        retry.toPolicy();
        Checks.positive("outbox.metrics.refresh-interval", metrics.refreshInterval());
        purge.toPurger(OutboxPurger.builder());
        Checks.atLeast("outbox.metrics.max-event-types", metrics.maxEventTypes(), 1);
        context.mdc();
        outboxes.forEach((name, named) -> named.check(name));
    }

    /** Where the outbox tables are: {@code outbox.schema} and {@code outbox.table-prefix}, checked. */
    public OutboxTables tables() {
        return tables(schema, tablePrefix);
    }

    private static OutboxTables tables(@Nullable String schema, String tablePrefix) {
        return OutboxTables.builder().schema(schema).tablePrefix(tablePrefix).build();
    }

    /**
     * An outbox of its own on another {@code DataSource}: its own tables there, its own instance registration and
     * partitions, processing loop, metrics (tagged {@code outbox=<name>}) and actuator section. Processing, retry,
     * instance, purge and metrics settings are those of {@code outbox.*}.
     *
     * @param dataSource the name of the {@code DataSource} bean whose transactions write this outbox's records
     *     (required)
     * @param transactionManager the name of a transaction manager bean of that DataSource, for the outbox's own
     *     transactions (a record saved outside any transaction, the reads); unset: one over the DataSource. The
     *     application's transactions are joined whichever manager runs them, as long as it binds the DataSource's
     *     connection (a {@code DataSourceTransactionManager}, {@code JdbcTransactionManager} or
     *     {@code JpaTransactionManager})
     * @param schema like {@code outbox.schema}, in that database
     * @param tablePrefix like {@code outbox.table-prefix}, in that database
     * @param handlers ids of the handlers and publishers records of this outbox are addressed to; empty for all of the
     *     application's
     * @param listenNotify like {@code outbox.listen-notify}
     * @param schemaInitialization creation of this outbox's tables at startup
     */
    public record Named(
            @Nullable String dataSource,
            @Nullable String transactionManager,
            @Nullable String schema,
            @DefaultValue(OutboxTables.DEFAULT_PREFIX) String tablePrefix,
            @DefaultValue List<String> handlers,
            @DefaultValue("true") boolean listenNotify,
            @DefaultValue SchemaInitialization schemaInitialization) {

        /** The name used for the default outbox in meters and reports; no named outbox may take it. */
        public static final String DEFAULT_NAME = "default";
        /** A name is a tag value and a path segment of the actuator endpoint: kept short and plain. */
        public static final int MAX_NAME_LENGTH = 32;
        private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9-]*");

        void check(String name) {
            if (!NAME.matcher(name).matches() || name.length() > MAX_NAME_LENGTH) {
                throw new IllegalArgumentException("outbox.outboxes: an outbox name must be lower-case letters, digits "
                        + "and hyphens, starting with a letter, at most " + MAX_NAME_LENGTH + " characters, but was '"
                        + name + "'");
            }
            if (DEFAULT_NAME.equals(name)) {
                throw new IllegalArgumentException("outbox.outboxes." + name + ": '" + DEFAULT_NAME + "' names the "
                        + "outbox of outbox.*; give this one another name");
            }
            if (dataSource == null || dataSource.isBlank()) {
                throw new IllegalArgumentException("outbox.outboxes." + name + ".data-source is required: the name of "
                        + "the DataSource bean whose transactions write this outbox's records");
            }
            tables(name);
        }

        /** Where this outbox's tables are, checked; errors name this outbox's properties. */
        public OutboxTables tables(String name) {
            return OutboxTables.builder().properties("outbox.outboxes." + name).schema(schema)
                    .tablePrefix(tablePrefix).build();
        }
    }

    /**
     * @param enabled delete finished records older than the retention, each instance in its own partitions (only where
     *     records are processed in the background)
     * @param retention how old (by creation) a finished record must be
     * @param interval pause between two purges; the first runs one interval after startup
     * @param batchSize most records one DELETE removes, so that no statement locks many rows (1..100000)
     * @param includeFailed purge FAILED records too; by default they stay for an operator
     */
    public record Purge(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("7d") Duration retention,
            @DefaultValue("1h") Duration interval,
            @DefaultValue("1000") int batchSize,
            @DefaultValue("false") boolean includeFailed) {

        /** These settings on a purger builder; the builder checks them. */
        public OutboxPurger.Builder toPurger(OutboxPurger.Builder builder) {
            return builder.retention(retention).interval(interval).batchSize(batchSize).includeFailed(includeFailed);
        }
    }

    /**
     * @param refreshInterval how long database-backed figures (record counts, backlog per partition, cluster) are
     *     reused by gauges, health and the actuator endpoint: at most one grouped query per family per interval
     * @param partitionGauges publish {@code outbox.partition.pending} for each of the 256 partitions (a
     *     heatmap); 256 series per instance
     * @param maxEventTypes distinct {@code event_type} tag values of the record counters; further types are counted
     *     as {@code other}
     * @param countCompletedRecords count the COMPLETED records too at each refresh (the
     *     {@code outbox.records.count} gauge of status {@code completed}, the endpoint's and the console's figure): a
     *     read of the whole record table each time, since handled records stay until purged
     */
    public record Metrics(
            @DefaultValue("10s") @DurationUnit(ChronoUnit.MILLIS) Duration refreshInterval,
            @DefaultValue("true") boolean partitionGauges,
            @DefaultValue("50") int maxEventTypes,
            @DefaultValue("false") boolean countCompletedRecords) {
    }

    /**
     * @param mdcKeys SLF4J MDC keys whose values are stored as headers of every record written while they are set, and
     *     put in the MDC again around the record's handler call (a tenant, a correlation id)
     */
    public record Context(@DefaultValue List<String> mdcKeys) {

        /** The application's record contexts, and the MDC one when {@code mdcKeys} names any. */
        public List<RecordContext> with(List<RecordContext> beans) {
            if (mdcKeys.isEmpty()) {
                return beans;
            }
            List<RecordContext> all = new ArrayList<>(beans);
            all.add(mdc());
            return all;
        }

        /** The MDC context of {@code mdcKeys}, checked: a key must be a valid header name. */
        public MdcRecordContext mdc() {
            try {
                return MdcRecordContext.of(mdcKeys);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("outbox.context.mdc-keys: " + e.getMessage(), e);
            }
        }
    }

    /**
     * @param enabled apply the outbox Liquibase changelog ({@code db/changelog/outbox/db.changelog-master.xml}) at
     *     startup; leave off when your own Liquibase master includes it
     */
    public record SchemaInitialization(@DefaultValue("false") boolean enabled) {
    }

    /**
     * @param enabled run the background processing loop; when off, records are written but only processed by
     *     explicit calls to {@code OutboxProcessor.processDueRecords()}
     * @param stopOnFirstFailure when a record fails, hold back the later records of its aggregate until it succeeds
     *     (true), or let them proceed independently (false)
     * @param concurrency aggregates processed in parallel; records of one aggregate are always sequential (1..1000)
     * @param deleteCompletedRecords delete records once handled instead of keeping them as COMPLETED
     * @param handlerTimeout how long one handler call may take; past it the handler's thread is interrupted and the
     *     attempt fails (a handler that ignores interrupts keeps its aggregate waiting until it returns). Unset: no
     *     limit
     * @param maxDeferral how long a record may wait for an instance that has its handler, counted from its first
     *     deferral (during a rolling deploy, records written by a newer version wait in the partitions of older ones);
     *     past it the record is FAILED. 0 fails such records at once
     * @param deferralInterval how soon a deferred record is due again for an instance that has its handler, and how
     *     often an instance looks for records of handlers it lacks
     * @param transactionGroupSize the most records of transactional handlers run in one transaction of the outbox's
     *     database with their completions (1..1000); a larger group commits less often, and a failure in it makes
     *     more handlers run again
     */
    public record Processing(
            @DefaultValue("true") boolean enabled,
            @DefaultValue("true") boolean stopOnFirstFailure,
            @DefaultValue("4") int concurrency,
            @DefaultValue("false") boolean deleteCompletedRecords,
            @Nullable Duration handlerTimeout,
            @DefaultValue("24h") Duration maxDeferral,
            @DefaultValue("5s") Duration deferralInterval,
            @DefaultValue("100") int transactionGroupSize) {
    }

    /**
     * @param maxRetries retries after the first attempt; {@code 3} means at most four attempts, then the record is
     *     FAILED
     * @param policy the retry delay policy; ignored when the application defines an {@code OutboxRetryPolicy} bean
     * @param fixed settings of the fixed policy
     * @param exponential settings of the exponential policy
     * @param jittered settings of the jittered policy
     */
    public record Retry(
            @DefaultValue("3") int maxRetries,
            @DefaultValue("exponential") RetryPolicyType policy,
            @DefaultValue Fixed fixed,
            @DefaultValue Exponential exponential,
            @DefaultValue Jittered jittered) {

        public Retry {
            Checks.inRange("outbox.retry.max-retries", maxRetries, 0, Integer.MAX_VALUE - 1);
        }

        /** The stock policy these settings describe; the processor bounds it by {@code max-retries}. */
        public OutboxRetryPolicy toPolicy() {
            return switch (policy) {
                case FIXED, EXPONENTIAL -> basePolicy(policy);
                case JITTERED -> {
                    if (jittered.basePolicy() == RetryPolicyType.JITTERED) {
                        throw new IllegalArgumentException(
                                "outbox.retry.jittered.base-policy must be fixed or exponential but was jittered");
                    }
                    yield withProperty("outbox.retry.jittered.jitter",
                            () -> OutboxRetryPolicy.jittered(basePolicy(jittered.basePolicy()), jittered.jitter()));
                }
            };
        }

        private OutboxRetryPolicy basePolicy(RetryPolicyType type) {
            if (type == RetryPolicyType.FIXED) {
                return withProperty("outbox.retry.fixed", () -> OutboxRetryPolicy.fixed(fixed.delay()));
            }
            return withProperty("outbox.retry.exponential", () -> OutboxRetryPolicy.exponential(
                    exponential.initialDelay(), exponential.maxDelay(), exponential.multiplier()));
        }

        private static OutboxRetryPolicy withProperty(String prefix, Supplier<OutboxRetryPolicy> factory) {
            try {
                return factory.get();
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException(prefix + ": " + e.getMessage(), e);
            }
        }

        /** @param delay wait before every retry */
        public record Fixed(@DefaultValue("5s") @DurationUnit(ChronoUnit.MILLIS) Duration delay) {
        }

        /**
         * @param initialDelay wait before the first retry
         * @param maxDelay longest wait between retries
         * @param multiplier factor applied to the wait after each retry (at least 1.0)
         */
        public record Exponential(
                @DefaultValue("2s") @DurationUnit(ChronoUnit.MILLIS) Duration initialDelay,
                @DefaultValue("60s") @DurationUnit(ChronoUnit.MILLIS) Duration maxDelay,
                @DefaultValue("2.0") double multiplier) {
        }

        /**
         * @param basePolicy the policy whose delays get the jitter: fixed or exponential
         * @param jitter largest random extra wait added to each delay
         */
        public record Jittered(
                @DefaultValue("exponential") RetryPolicyType basePolicy,
                @DefaultValue("500ms") @DurationUnit(ChronoUnit.MILLIS) Duration jitter) {
        }
    }

    /** The stock retry policies. */
    public enum RetryPolicyType {
        FIXED, EXPONENTIAL, JITTERED
    }

    /**
     * @param id stable id of this instance in the instance table, e.g. the pod name, so that a restart takes its own
     *     place back; generated (host name and a random suffix) when empty
     * @param gracefulShutdownTimeoutSeconds on shutdown, how long records being handled may take to finish before the
     *     instance hands its partitions over
     * @param handOverTimeoutSeconds on shutdown, how long the database steps of the hand-over may take together
     *     (marking the instance SHUTTING_DOWN, releasing its partitions, leaving the instance table), the database
     *     gone included; so a stop takes at most this plus the graceful-shutdown timeout. What is not done in time is
     *     logged, and other instances take the partitions over after the stale-instance timeout
     * @param heartbeatIntervalSeconds how often the instance records that it is alive
     * @param staleInstanceTimeoutSeconds after how long without a heartbeat (by the database's clock) an instance
     *     counts as dead and its partitions are taken over; must be greater than the heartbeat interval
     * @param newInstanceDetectionIntervalSeconds how often each instance looks for joined or departed instances and
     *     rebalances the partitions
     * @param version the application's version, written into the instance table beside the handlers the instance
     *     has, for operators during a rolling deploy; when empty, the build's version ({@code BuildProperties}, from
     *     {@code META-INF/build-info.properties}) if there is one
     */
    public record Instance(
            @DefaultValue("") String id,
            @DefaultValue("15") long gracefulShutdownTimeoutSeconds,
            @DefaultValue("10") long handOverTimeoutSeconds,
            @DefaultValue("2") long heartbeatIntervalSeconds,
            @DefaultValue("10") long staleInstanceTimeoutSeconds,
            @DefaultValue("2") long newInstanceDetectionIntervalSeconds,
            @DefaultValue("") String version) {

        public Instance {
            if (id.length() > 255) {
                throw new IllegalArgumentException(
                        "outbox.instance.id is " + id.length() + " characters long; the limit is 255");
            }
            if (version.length() > InstanceCapabilities.MAX_VERSION_LENGTH) {
                throw new IllegalArgumentException("outbox.instance.version is " + version.length()
                        + " characters long; the limit is " + InstanceCapabilities.MAX_VERSION_LENGTH);
            }
            Checks.atLeast("outbox.instance.hand-over-timeout-seconds", handOverTimeoutSeconds, 1);
            Checks.atLeast("outbox.instance.heartbeat-interval-seconds", heartbeatIntervalSeconds, 1);
            Checks.atLeast("outbox.instance.stale-instance-timeout-seconds", staleInstanceTimeoutSeconds, 1);
            Checks.atLeast("outbox.instance.new-instance-detection-interval-seconds",
                    newInstanceDetectionIntervalSeconds, 1);
            timings(heartbeatIntervalSeconds, staleInstanceTimeoutSeconds, newInstanceDetectionIntervalSeconds);
        }

        /** {@link #handOverTimeoutSeconds()} as a duration. */
        public Duration handOverTimeout() {
            return Duration.ofSeconds(handOverTimeoutSeconds);
        }

        /** The cluster's timings, which check how they relate (the stale timeout exceeds the heartbeat interval). */
        public ClusterTimings timings() {
            return timings(heartbeatIntervalSeconds, staleInstanceTimeoutSeconds, newInstanceDetectionIntervalSeconds);
        }

        private static ClusterTimings timings(long heartbeatSeconds, long staleSeconds, long rebalanceSeconds) {
            return new ClusterTimings(Duration.ofSeconds(heartbeatSeconds), Duration.ofSeconds(staleSeconds),
                    Duration.ofSeconds(rebalanceSeconds));
        }
    }

    /** The processing settings as the engine's immutable options; the engine checks every value. */
    public ProcessingOptions toProcessingOptions() {
        return processingOptions(pollInterval, batchSize, processing, instance);
    }

    /** {@link #maxPayloadSize()} in bytes. */
    public int maxPayloadBytes() {
        return (int) maxPayloadSize.toBytes();
    }

    private static ProcessingOptions processingOptions(Duration pollInterval, int batchSize, Processing processing,
            Instance instance) {
        return ProcessingOptions.defaults()
                .withPollInterval(pollInterval)
                .withBatchSize(batchSize)
                .withStopOnFirstFailure(processing.stopOnFirstFailure())
                .withConcurrency(processing.concurrency())
                .withDeleteCompletedRecords(processing.deleteCompletedRecords())
                .withHandlerTimeout(processing.handlerTimeout())
                .withMaxDeferral(processing.maxDeferral())
                .withDeferralInterval(processing.deferralInterval())
                .withTransactionGroupSize(processing.transactionGroupSize())
                .withShutdownTimeout(Duration.ofSeconds(instance.gracefulShutdownTimeoutSeconds()));
    }
}
