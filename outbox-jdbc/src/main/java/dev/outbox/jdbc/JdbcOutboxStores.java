package dev.outbox.jdbc;

import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.internal.Checks;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.RecordTransactions;
import dev.outbox.spi.WakeUpSource;
import java.time.Duration;
import java.util.Objects;
import java.util.Set;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * The outbox stores of one database, for its {@link DataSource}: records, instances, partitions, the heartbeats'
 * reserved connection, and the wake-ups the database offers between instances (LISTEN/NOTIFY on PostgreSQL, none
 * elsewhere). What a processing node needs from the database, without Spring Boot:
 *
 * <pre>{@code
 * JdbcOutboxStores stores = JdbcOutboxStores.create(dataSource);
 * OutboxNode node = OutboxNode.builder()
 *         .processor(OutboxProcessor.builder().recordStore(stores.records()).handler(this::publish))
 *         .cluster(stores.cluster("node-1"))
 *         .wakeUpSource(stores.notifications())
 *         .build();
 * }</pre>
 *
 * <p>Closing it gives the heartbeats' reserved connection back to the pool.
 */
public final class JdbcOutboxStores implements AutoCloseable {

    private final DataSource dataSource;
    private final SqlStatements sql;
    private final boolean notifications;
    private final JdbcRecordStore records;
    private final JdbcInstanceStore instances;
    private final JdbcPartitionStore partitions;
    private @Nullable ReservedConnectionDataSource heartbeatConnection;
    private @Nullable InstanceStore heartbeats;

    private JdbcOutboxStores(DataSource dataSource, SqlStatements sql, boolean notifications) {
        this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
        this.sql = Objects.requireNonNull(sql, "sql");
        this.notifications = notifications && sql.dialect().hasNotifications();
        this.records = new JdbcRecordStore(dataSource, sql);
        this.instances = new JdbcInstanceStore(dataSource, sql);
        this.partitions = new JdbcPartitionStore(dataSource, sql);
    }

    /**
     * The stores of the default tables in the database behind {@code dataSource}, detected from it, with
     * notifications where it has them.
     */
    public static JdbcOutboxStores create(DataSource dataSource) {
        return create(dataSource, OutboxTables.defaults());
    }

    /** The stores of {@code tables} in the database behind {@code dataSource}, with notifications where it has them. */
    public static JdbcOutboxStores create(DataSource dataSource, OutboxTables tables) {
        return create(dataSource, DatabaseDialect.detect(dataSource, tables), true);
    }

    /**
     * @param sql the database's statements on the outbox's tables ({@link DatabaseDialect#detect(DataSource,
     *     OutboxTables)})
     * @param notifications whether to wake other instances at commit where the database can
     *     ({@code outbox.listen-notify})
     */
    public static JdbcOutboxStores create(DataSource dataSource, SqlStatements sql, boolean notifications) {
        return new JdbcOutboxStores(dataSource, sql, notifications);
    }

    public DatabaseDialect dialect() {
        return sql.dialect();
    }

    /** The statements the stores run, on their tables. */
    public SqlStatements statements() {
        return sql;
    }

    public OutboxTables tables() {
        return sql.tables();
    }

    public JdbcRecordStore records() {
        return records;
    }

    public JdbcInstanceStore instances() {
        return instances;
    }

    public JdbcPartitionStore partitions() {
        return partitions;
    }

    /**
     * Transactions of this database for transactional handlers: a handler's writes on the DataSource and its records'
     * completions by {@link #records()} commit together or not at all. On MariaDB and MySQL they run at
     * {@code READ COMMITTED} ({@link DatabaseDialect#writesLockWhatTheyRead()}). A transaction the manager cannot
     * begin (no connection) ends in {@link dev.outbox.spi.TransactionNotBegunException}, before any work runs.
     *
     * @param transactionManager manages this DataSource (a {@code DataSourceTransactionManager},
     *     {@code JdbcTransactionManager} or {@code JpaTransactionManager} over it); a transaction of one that does not
     *     is refused before any work runs in it
     */
    public RecordTransactions recordTransactions(PlatformTransactionManager transactionManager) {
        return new JdbcRecordTransactions(dataSource, sql, transactionManager, null);
    }

    /**
     * {@link #recordTransactions(PlatformTransactionManager)}, where on PostgreSQL the server ends a session that
     * stays idle inside such a transaction for longer than {@code idleLimit}
     * ({@code idle_in_transaction_session_timeout} for that transaction): an instance frozen mid-transaction then
     * loses its transaction, and the row locks its handlers took, instead of holding up the next owners of its
     * partitions until it wakes. The cluster's stale-instance timeout is the natural limit: by then the partitions
     * are taken over. A handler must not spend that long between two statements (no long I/O inside).
     */
    public RecordTransactions recordTransactions(PlatformTransactionManager transactionManager, Duration idleLimit) {
        Checks.positive("idleLimit", idleLimit);
        return new JdbcRecordTransactions(dataSource, sql, transactionManager, idleLimit);
    }

    /**
     * The instance store heartbeats go through: on one connection reserved from the pool on first use, so that a busy
     * pool cannot delay a heartbeat.
     */
    public synchronized InstanceStore heartbeats() {
        if (heartbeats == null) {
            heartbeatConnection = new ReservedConnectionDataSource(dataSource);
            heartbeats = new JdbcInstanceStore(heartbeatConnection, sql);
        }
        return heartbeats;
    }

    /**
     * A coordinator of these stores for the instance {@code instanceId}, heartbeating on the reserved connection; set
     * its timings, host and listeners as needed.
     */
    public ClusterCoordinator.Builder cluster(String instanceId) {
        return ClusterCoordinator.builder().instanceStore(instances).heartbeatStore(heartbeats())
                .partitionStore(partitions).instanceId(instanceId);
    }

    /**
     * Wakes this instance when another one commits records for its partitions: LISTEN on PostgreSQL, on a connection
     * of its own while the node runs; a source that never wakes where the database has no notifications or they are
     * off.
     */
    public WakeUpSource notifications() {
        return notifications ? new PostgresNotifications(dataSource, sql.tables().notificationChannel())
                : WakeUpSource.none();
    }

    /**
     * What a transaction that saved records does at its commit: notifies the other instances where the database can
     * (in the transaction, so only a commit sends it), then wakes this JVM's processor through {@code local}.
     */
    public CommitHooks commitHooks(LocalWakeUps local) {
        Objects.requireNonNull(local, "local");
        JdbcTemplate jdbc = new JdbcTemplate(dataSource);
        String channel = sql.tables().notificationChannel();
        return new CommitHooks() {
            @Override
            public void beforeCommit(Set<Integer> written) {
                if (notifications) {
                    PostgresNotifications.notifyPartitions(jdbc, channel, written);
                }
            }

            @Override
            public void afterCommit(Set<Integer> written) {
                local.recordsCommitted(written);
            }
        };
    }

    /** Gives the heartbeats' reserved connection back. */
    @Override
    public synchronized void close() {
        if (heartbeatConnection != null) {
            heartbeatConnection.close();
            heartbeatConnection = null;
            heartbeats = null;
        }
    }
}
