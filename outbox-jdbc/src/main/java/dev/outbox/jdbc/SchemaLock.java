package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One schema change at a time for a set of outbox tables, across every instance on the database: instances started
 * together on an empty database would otherwise race to create Liquibase's own tables, and the losers fail to start.
 * Held on the connection that runs the changelog, for as long as it runs: a session-level advisory lock on
 * PostgreSQL, a named lock ({@code GET_LOCK}) on MariaDB and MySQL; on H2, whose databases belong to one JVM, a lock
 * of the JVM. A session that dies releases its lock with it, so a killed instance never blocks the others.
 */
final class SchemaLock implements AutoCloseable {

    /** How long an instance waits for another one's schema change before it gives up. */
    static final Duration WAIT = Duration.ofMinutes(5);

    private static final Logger log = LoggerFactory.getLogger(SchemaLock.class);
    private static final long RETRY_MILLIS = 100;
    private static final Map<String, ReentrantLock> JVM_LOCKS = new ConcurrentHashMap<>();

    private final Connection connection;
    private final DatabaseDialect dialect;
    private final String name;
    private final long key;
    private final ReentrantLock jvmLock;
    /** This thread holds the lock already, through another connection: the database lock is that one's. */
    private boolean nested;

    private SchemaLock(Connection connection, DatabaseDialect dialect, String name, ReentrantLock jvmLock) {
        this.connection = connection;
        this.dialect = dialect;
        this.name = name;
        this.key = UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).getMostSignificantBits();
        this.jvmLock = jvmLock;
    }

    /**
     * Takes the lock of {@code tables} on {@code connection}, waiting up to {@link #WAIT} for another instance to
     * finish.
     *
     * @throws IllegalStateException if the wait runs out
     */
    static SchemaLock acquire(Connection connection, OutboxTables tables) throws SQLException {
        DatabaseDialect dialect = DatabaseDialect.fromProductName(connection.getMetaData().getDatabaseProductName());
        // The same name in every instance: PostgreSQL's advisory locks are the database's already; the named locks of
        // MariaDB and MySQL are the server's, so the database is part of the name; H2's lock is the JVM's.
        String scope = switch (dialect) {
            case POSTGRESQL -> "";
            case MARIADB, MYSQL -> String.valueOf(connection.getCatalog());
            case H2 -> connection.getMetaData().getURL();
        };
        String name = "outbox-schema:" + scope + ":" + tables.schema().orElse("") + ":" + tables.tablePrefix();
        SchemaLock lock = new SchemaLock(connection, dialect, name,
                JVM_LOCKS.computeIfAbsent(name, ignored -> new ReentrantLock()));
        lock.take();
        return lock;
    }

    private void take() throws SQLException {
        long deadline = System.nanoTime() + WAIT.toNanos();
        boolean told = false;
        try {
            nested = jvmLock.isHeldByCurrentThread();
            // Threads of one JVM queue here first; only then does the database lock go round between JVMs.
            if (!jvmLock.tryLock(WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw timedOut();
            }
            while (!nested && !tryDatabaseLock()) {
                if (!told) {
                    log.info("Outbox: waiting for another instance to finish changing the outbox schema");
                    told = true;
                }
                if (System.nanoTime() > deadline) {
                    jvmLock.unlock();
                    throw timedOut();
                }
                Thread.sleep(RETRY_MILLIS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (jvmLock.isHeldByCurrentThread()) {
                jvmLock.unlock();
            }
            throw new IllegalStateException("Outbox: interrupted while waiting for the schema lock", e);
        } catch (SQLException | RuntimeException e) {
            if (jvmLock.isHeldByCurrentThread()) {
                jvmLock.unlock();
            }
            throw e;
        }
        if (told) {
            log.info("Outbox: the other instance is done; checking the outbox schema");
        }
    }

    private boolean tryDatabaseLock() throws SQLException {
        return switch (dialect) {
            case POSTGRESQL -> queryBoolean("SELECT pg_try_advisory_lock(?)", key);
            // 0 when another session holds it; a wait of 0 seconds, so that this loop keeps the deadline
            case MARIADB, MYSQL -> queryBoolean("SELECT GET_LOCK(?, 0)", lockName());
            case H2 -> true;
        };
    }

    @Override
    public void close() {
        if (nested) {
            jvmLock.unlock();
            return;
        }
        try {
            switch (dialect) {
                case POSTGRESQL -> queryBoolean("SELECT pg_advisory_unlock(?)", key);
                case MARIADB, MYSQL -> queryBoolean("SELECT RELEASE_LOCK(?)", lockName());
                case H2 -> {
                    // the JVM lock alone
                }
            }
        } catch (SQLException e) {
            // The session still holds it, and lets it go when it ends; only a later schema change waits for that.
            log.warn("Outbox: could not release the schema lock: {}", e.toString());
        } finally {
            jvmLock.unlock();
        }
    }

    /** At most 64 characters, as MySQL wants: a digest of the full name. */
    private String lockName() {
        return "outbox-schema-" + Long.toHexString(key);
    }

    private boolean queryBoolean(String sql, Object argument) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setObject(1, argument);
            try (ResultSet rows = statement.executeQuery()) {
                return rows.next() && rows.getBoolean(1);
            }
        }
    }

    private IllegalStateException timedOut() {
        return new IllegalStateException("Outbox: another instance has been changing the outbox schema for more than "
                + WAIT.toMinutes() + " minutes (lock '" + name + "'); is a migration stuck?");
    }
}
