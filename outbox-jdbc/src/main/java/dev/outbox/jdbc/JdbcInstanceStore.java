package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.internal.Checks;
import dev.outbox.internal.FormPairs;
import dev.outbox.spi.InstanceCapabilities;
import dev.outbox.spi.InstanceState;
import dev.outbox.spi.InstanceStatus;
import dev.outbox.spi.InstanceStore;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.dao.PessimisticLockingFailureException;
import org.springframework.jdbc.core.namedparam.MapSqlParameterSource;
import org.springframework.jdbc.core.namedparam.NamedParameterJdbcTemplate;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * {@link InstanceStore} in plain SQL over JDBC, statements from the {@link DatabaseDialect}'s SQL resources. Times are
 * written as the database's {@code CURRENT_TIMESTAMP}. {@link #findLive} compares with it in SQL;
 * {@link #removeStale} first reads the database's clock and passes {@code now - staleTimeout} as the cutoff, which is
 * conservative: the database's time only moves forward between the two statements, so a heartbeat is never judged
 * older than it is.
 *
 * <p>Needs no surrounding transaction (each method runs its statements in auto-commit, but
 * {@link #heartbeatAndFindLive}, which on PostgreSQL runs its two in a transaction of its own). Give it a
 * {@link ReservedConnectionDataSource} so that heartbeats do not wait for a busy application pool; a heartbeat that
 * finds the reserved connection broken then runs once more on a new one.
 */
public final class JdbcInstanceStore implements InstanceStore {

    private static final Logger log = LoggerFactory.getLogger(JdbcInstanceStore.class);
    private static final int MAX_REGISTER_ATTEMPTS = 10;

    private final NamedParameterJdbcTemplate jdbc;
    private final TransactionTemplate transactions;
    private final @Nullable ReservedConnectionDataSource reserved;
    private final DatabaseDialect dialect;
    private final String clockNow;
    private final String registerUpdate;
    private final String registerInsert;
    private final String heartbeat;
    private final String markShuttingDown;
    private final String remove;
    private final String findLive;
    private final String removeStale;

    /** On the default tables ({@link OutboxTables#defaults()}). */
    public JdbcInstanceStore(DataSource dataSource, DatabaseDialect dialect) {
        this(dataSource, dialect.statements());
    }

    /**
     * With the statements of one database on one set of tables, as
     * {@link DatabaseDialect#detect(DataSource, OutboxTables)} makes them.
     */
    public JdbcInstanceStore(DataSource dataSource, SqlStatements sql) {
        this.jdbc = new NamedParameterJdbcTemplate(Objects.requireNonNull(dataSource, "dataSource"));
        this.transactions = new TransactionTemplate(new DataSourceTransactionManager(dataSource));
        this.reserved = dataSource instanceof ReservedConnectionDataSource held ? held : null;
        this.dialect = sql.dialect();
        this.clockNow = sql.get("clock.now");
        this.registerUpdate = sql.get("instance.register.update");
        this.registerInsert = sql.get("instance.register.insert");
        this.heartbeat = sql.get("instance.heartbeat");
        this.markShuttingDown = sql.get("instance.markShuttingDown");
        this.remove = sql.get("instance.remove");
        this.findLive = sql.get("instance.findLive");
        this.removeStale = sql.get("instance.removeStale");
    }

    /**
     * Update first (a restart keeps its id); insert when there is no row; on a lost insert race, update again. InnoDB
     * may end concurrent registrations of one id in a deadlock, on the insert or on either update: the loser tries the
     * whole registration again.
     */
    @Override
    public void register(String instanceId, String hostname, int port) {
        register(instanceId, hostname, port, null);
    }

    @Override
    public void register(String instanceId, String hostname, int port, @Nullable InstanceCapabilities capabilities) {
        Objects.requireNonNull(instanceId, "instanceId");
        Objects.requireNonNull(hostname, "hostname");
        Map<String, @Nullable Object> row = new HashMap<>();
        row.put("instanceId", instanceId);
        row.put("hostname", hostname);
        row.put("port", port);
        row.put("handlerIds", capabilities == null ? null : FormPairs.encodeList(capabilities.handlerIds()));
        row.put("eventTypes", capabilities == null ? null : FormPairs.encodeList(capabilities.eventTypes()));
        row.put("recordProcessor", capabilities == null ? null : capabilities.recordProcessor());
        row.put("appVersion", capabilities == null ? null : capabilities.version());
        for (int attempt = 1; ; attempt++) {
            try {
                onReserved(() -> {
                    registerOnce(instanceId, row);
                    return true;
                });
                return;
            } catch (PessimisticLockingFailureException e) {
                if (attempt == MAX_REGISTER_ATTEMPTS) {
                    throw e;
                }
                log.debug("Outbox instance {}: registration lost a lock race; trying again", instanceId);
            }
        }
    }

    private void registerOnce(String instanceId, Map<String, @Nullable Object> row) {
        if (jdbc.update(registerUpdate, row) == 1) {
            log.debug("Outbox instance {} registered again", instanceId);
            return;
        }
        try {
            jdbc.update(registerInsert, row);
        } catch (DuplicateKeyException e) {
            if (jdbc.update(registerUpdate, row) != 1) {
                throw new IllegalStateException("Outbox: cannot register instance " + instanceId
                        + ": its row was inserted and removed concurrently", e);
            }
        }
    }

    /** Sets the row's count of completed records to NULL: a caller that publishes none leaves it unknown. */
    @Override
    public boolean heartbeat(String instanceId) {
        return onReserved(() -> jdbc.update(heartbeat, beat(instanceId, null)) == 1);
    }

    @Override
    public boolean heartbeat(String instanceId, long recordsCompleted) {
        return onReserved(() -> jdbc.update(heartbeat, beat(instanceId, recordsCompleted)) == 1);
    }

    /**
     * Both statements in one transaction where {@link DatabaseDialect#heartbeatsInOneTransaction} allows it: one
     * commit, and on PostgreSQL one entry in pg_stat_database, not two. Elsewhere the heartbeat commits before the
     * read, so that no other instance ever waits for this one's row.
     */
    @Override
    public Optional<List<InstanceState>> heartbeatAndFindLive(String instanceId, Duration staleTimeout) {
        return heartbeatAndFindLive(beat(instanceId, null), staleTimeout);
    }

    @Override
    public Optional<List<InstanceState>> heartbeatAndFindLive(String instanceId, long recordsCompleted,
            Duration staleTimeout) {
        return heartbeatAndFindLive(beat(instanceId, recordsCompleted), staleTimeout);
    }

    private Optional<List<InstanceState>> heartbeatAndFindLive(MapSqlParameterSource beat, Duration staleTimeout) {
        Objects.requireNonNull(staleTimeout, "staleTimeout");
        if (!dialect.heartbeatsInOneTransaction()) {
            return onReserved(() -> jdbc.update(heartbeat, beat) == 1
                    ? Optional.of(queryLive(staleTimeout)) : Optional.empty());
        }
        return onReserved(() -> Objects.requireNonNull(transactions.execute(status ->
                jdbc.update(heartbeat, beat) == 1 ? Optional.of(queryLive(staleTimeout))
                        : Optional.<List<InstanceState>>empty())));
    }

    /** The heartbeat's parameters; the count typed, so that a NULL binds on every driver. */
    private static MapSqlParameterSource beat(String instanceId, @Nullable Long recordsCompleted) {
        if (recordsCompleted != null) {
            Checks.atLeast("recordsCompleted", recordsCompleted, 0);
        }
        return new MapSqlParameterSource("instanceId", Objects.requireNonNull(instanceId, "instanceId"))
                .addValue("recordsCompleted", recordsCompleted, Types.BIGINT);
    }

    /**
     * On a reserved connection, once more on a new one when it turned out broken (it is not checked before each use);
     * else as it is.
     */
    private <T> T onReserved(Supplier<T> work) {
        return reserved == null ? work.get() : reserved.retryingOnceIfBroken(work);
    }

    @Override
    public void markShuttingDown(String instanceId) {
        onReserved(() -> jdbc.update(markShuttingDown, id(instanceId)));
    }

    @Override
    public void remove(String instanceId) {
        onReserved(() -> jdbc.update(remove, id(instanceId)));
    }

    /** One statement: the cutoff is computed from the database's clock in SQL, which also returns that clock. */
    @Override
    public List<InstanceState> findLive(Duration staleTimeout) {
        return onReserved(() -> queryLive(staleTimeout));
    }

    private List<InstanceState> queryLive(Duration staleTimeout) {
        BoundStatement statement = findLiveStatement(staleTimeout);
        return jdbc.query(statement.sql(), statement.parameters(), (rs, rowNum) -> mapRow(rs,
                Objects.requireNonNull(dialect.readTimestamp(rs, "db_now"), "db_now")));
    }

    BoundStatement findLiveStatement(Duration staleTimeout) {
        long staleMillis = Objects.requireNonNull(staleTimeout, "staleTimeout").toMillis();
        return new BoundStatement(findLive, new MapSqlParameterSource("staleMillis", staleMillis));
    }

    @Override
    public int removeStale(Duration staleTimeout) {
        return onReserved(() -> jdbc.update(removeStale, Map.of("cutoff", cutoff(databaseNow(), staleTimeout))));
    }

    private Object cutoff(Instant now, Duration staleTimeout) {
        return dialect.timestampValue(now.minus(Objects.requireNonNull(staleTimeout, "staleTimeout")));
    }

    private Instant databaseNow() {
        Instant now = jdbc.getJdbcTemplate().queryForObject(clockNow,
                (rs, rowNum) -> dialect.readTimestamp(rs, "db_now"));
        return Objects.requireNonNull(now, "the database returned no CURRENT_TIMESTAMP");
    }

    private static Map<String, Object> id(String instanceId) {
        return Map.of("instanceId", Objects.requireNonNull(instanceId, "instanceId"));
    }

    /** A heartbeat committed just after the clock read would show a negative age; it counts as zero. */
    private InstanceState mapRow(ResultSet rs, Instant now) throws SQLException {
        Instant startedAt = Objects.requireNonNull(dialect.readTimestamp(rs, "started_at"), "started_at");
        Instant lastHeartbeat = Objects.requireNonNull(dialect.readTimestamp(rs, "last_heartbeat"), "last_heartbeat");
        Duration age = Duration.between(lastHeartbeat, now);
        return new InstanceState(rs.getString("instance_id"), rs.getString("hostname"), rs.getInt("port"),
                InstanceStatus.valueOf(rs.getString("status")), startedAt, lastHeartbeat,
                age.isNegative() ? Duration.ZERO : age, capabilities(rs), recordsCompleted(rs));
    }

    /** Null when the instance published none (a version from before the count). */
    private static @Nullable Long recordsCompleted(ResultSet rs) throws SQLException {
        long completed = rs.getLong("records_completed");
        return rs.wasNull() ? null : completed;
    }

    /** Null when the instance registered without them (handler_ids is null). */
    private static @Nullable InstanceCapabilities capabilities(ResultSet rs) throws SQLException {
        String handlerIds = rs.getString("handler_ids");
        if (handlerIds == null) {
            return null;
        }
        return new InstanceCapabilities(Set.copyOf(FormPairs.decodeList(handlerIds)),
                Set.copyOf(FormPairs.decodeList(rs.getString("event_types"))), rs.getBoolean("record_processor"),
                rs.getString("app_version"));
    }
}
