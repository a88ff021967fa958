package dev.outbox.boot.cluster;

import static org.awaitility.Awaitility.await;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordStatus;
import dev.outbox.jdbc.OutboxSchemaInitializer;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.partition.PartitionHasher;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.springframework.jdbc.BadSqlGrammarException;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * A cluster test's world: a fresh PostgreSQL (or MariaDB) database with the outbox schema and the observation tables
 * ({@code cluster/observation-schema.sql}, {@code cluster/observation-schema-mariadb.sql}), the node JVMs, record
 * inserts, and the queries the assertions need. {@link #close()} kills every node still running and drops the
 * database.
 */
final class ClusterHarness implements AutoCloseable {

    static final Duration HEARTBEAT_INTERVAL = Duration.ofSeconds(1);
    static final Duration STALE_TIMEOUT = Duration.ofSeconds(4);
    static final Duration REBALANCE_INTERVAL = Duration.ofSeconds(1);
    static final Duration POLL_INTERVAL = Duration.ofMillis(100);
    static final int BATCH_SIZE = 200;
    static final Duration GRACEFUL_SHUTDOWN_TIMEOUT = Duration.ofSeconds(10);

    /** Generous deadlines: two cores are shared by PostgreSQL, the test JVM and up to four node JVMs. */
    static final Duration NODE_START_DEADLINE = Duration.ofSeconds(120);
    static final Duration DEADLINE = Duration.ofSeconds(150);

    private static final int ROWS_PER_TRANSACTION = 1_000;
    private static final String INSERT_RECORD = "INSERT INTO outbox_record"
            + " (id, status, aggregate_id, event_type, payload, partition_no, created_at, retry_count, next_retry_at,"
            + " handler_id) VALUES (?, 'NEW', ?, ?, ?, ?, {now}, 0, {now}, ?)";

    private static final List<String> WITHOUT_JPA = List.of(
            "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
            "org.springframework.boot.data.jpa.autoconfigure.DataJpaRepositoriesAutoConfiguration");

    private final TestDatabase database;
    private final DatabaseDialect dialect;
    private final JdbcTemplate jdbc;
    private final Path logDirectory;
    /** Whether the outbox tables exist already; nodes create them themselves only on an empty database. */
    private final boolean schemaApplied;
    private final Map<String, ClusterNode> nodes = new LinkedHashMap<>();
    /** Nodes the test has not stopped on purpose: a wait fails at once when one of them has died. */
    private final Set<String> expectedAlive = new HashSet<>();
    /** When set, nodes reach the database through this local port (a {@link TcpProxy}) instead of directly. */
    private int nodeDatabasePort;
    /** The handler the inserted records are addressed to: empty for the nodes' record processor. */
    private String recordHandlerId = "";
    /** Whether each record is inserted a second time, addressed to the {@link ProjectionWriter}. */
    private boolean projecting;
    private int roundsInserted;
    private long recordsInserted;
    private long projectionRecordsInserted;

    private ClusterHarness(TestDatabase database, Path logDirectory, boolean schemaApplied) {
        this.database = database;
        this.dialect = dialectOf(database.kind());
        this.jdbc = new JdbcTemplate(database.dataSource());
        this.logDirectory = logDirectory;
        this.schemaApplied = schemaApplied;
    }

    /** A new PostgreSQL database for the test named {@code testName}; node logs go to {@link #logDirectory}. */
    static ClusterHarness create(String testName) {
        return create(testName, TestDatabase.Kind.POSTGRES);
    }

    static ClusterHarness create(String testName, TestDatabase.Kind kind) {
        return create(testName, TestDatabase.create(kind));
    }

    /** The same on {@code database}, a new one the harness takes over (and drops on {@link #close()}). */
    static ClusterHarness create(String testName, TestDatabase database) {
        Path logs = logDirectory(testName);
        recreateDirectory(logs);
        try {
            OutboxSchemaInitializer.apply(database.dataSource());
            JdbcTemplate jdbc = new JdbcTemplate(database.dataSource());
            if (database.kind() == TestDatabase.Kind.MARIADB) {
                // One statement per paragraph: the MariaDB driver runs one statement per call.
                String script = resource("cluster/observation-schema-mariadb.sql");
                for (String paragraph : script.split("\\n\\s*\\n")) {
                    String statement = paragraph.replaceAll("(?m)^--.*$", "").strip();
                    if (!statement.isEmpty()) {
                        jdbc.execute(statement.endsWith(";") ? statement.substring(0, statement.length() - 1)
                                : statement);
                    }
                }
            } else {
                jdbc.execute(resource("cluster/observation-schema.sql"));
            }
            return new ClusterHarness(database, logs, true);
        } catch (RuntimeException | Error e) {
            database.close();
            throw e;
        }
    }

    /**
     * A new database with nothing in it, not even the outbox tables: for the nodes' own schema initialization. The
     * record and ownership observations of {@link #create} are not available.
     */
    static ClusterHarness createEmpty(String testName, TestDatabase.Kind kind) {
        Path logs = logDirectory(testName);
        recreateDirectory(logs);
        return new ClusterHarness(TestDatabase.create(kind), logs, false);
    }

    static Path logDirectory(String testName) {
        return Path.of("target", "cluster-logs", testName);
    }

    private static DatabaseDialect dialectOf(TestDatabase.Kind kind) {
        return switch (kind) {
            case POSTGRES -> DatabaseDialect.POSTGRESQL;
            case MARIADB -> DatabaseDialect.MARIADB;
            case H2 -> throw new IllegalArgumentException("cluster tests run on PostgreSQL or MariaDB");
        };
    }

    /** The Spring properties of a node; its id also names its database sessions, for the observation triggers. */
    List<String> nodeProperties(String instanceId) {
        boolean postgres = dialect == DatabaseDialect.POSTGRESQL;
        String direct = nodeDatabasePort == 0 ? database.jdbcUrl()
                : database.jdbcUrl().replaceFirst("//[^/]+/", "//127.0.0.1:" + nodeDatabasePort + "/");
        String url = postgres ? direct + (database.jdbcUrl().contains("?") ? "&" : "?")
                + "ApplicationName=" + instanceId : direct;
        List<String> properties = new ArrayList<>(List.of(
                "spring.datasource.url=" + url,
                "spring.datasource.username=" + database.username(),
                "spring.datasource.password=" + database.password(),
                "spring.datasource.hikari.maximum-pool-size=5",
                // The JDBC write path: Hibernate would take about 3 s of a node's 7 s start, and it changes nothing
                // in how instances share partitions (the JPA write path is the acceptance suite's).
                "spring.autoconfigure.exclude=" + String.join(",", WITHOUT_JPA),
                "spring.main.banner-mode=off",
                "spring.liquibase.enabled=false",
                // Liquibase is a good part of a node's start; on a database whose schema is applied it would find
                // nothing to do.
                "outbox.schema-initialization.enabled=" + !schemaApplied,
                "outbox.instance.id=" + instanceId,
                "outbox.poll-interval=" + POLL_INTERVAL.toMillis() + "ms",
                "outbox.batch-size=" + BATCH_SIZE,
                "outbox.processing.concurrency=4",
                "outbox.instance.heartbeat-interval-seconds=" + HEARTBEAT_INTERVAL.toSeconds(),
                "outbox.instance.stale-instance-timeout-seconds=" + STALE_TIMEOUT.toSeconds(),
                "outbox.instance.new-instance-detection-interval-seconds=" + REBALANCE_INTERVAL.toSeconds(),
                "outbox.instance.graceful-shutdown-timeout-seconds=" + GRACEFUL_SHUTDOWN_TIMEOUT.toSeconds()));
        if (!postgres) {
            // MariaDB has no application name that triggers can read: a session variable set on connect stands in.
            properties.add("spring.datasource.hikari.connection-init-sql=SET @outbox_node = '" + instanceId + "'");
        }
        return properties;
    }

    /** The database's host and port as the test reaches it, for a proxy in front of it. */
    InetSocketAddress databaseAddress() {
        URI uri = URI.create(database.jdbcUrl().substring("jdbc:".length()));
        return InetSocketAddress.createUnresolved(uri.getHost(), uri.getPort());
    }

    /** Nodes started from now on reach the database through {@code port} on 127.0.0.1. */
    void routeNodesThrough(int port) {
        this.nodeDatabasePort = port;
    }

    // ---- nodes ------------------------------------------------------------------------------------------------

    /**
     * Starts a node JVM without waiting for it (see {@link #awaitUp(String)}); {@code extraProperties} ("key=value")
     * add to or override {@link #nodeProperties(String)}. Only a node given
     * {@value ClusterNodeApplication#CONSOLE_SECURITY}=true has Spring Security on its class path.
     */
    void startNode(String instanceId, String... extraProperties) {
        // By key, later ones winning: Spring would join two values of one command-line key with a comma.
        Map<String, String> properties = new LinkedHashMap<>();
        Stream.concat(nodeProperties(instanceId).stream(), Stream.of(extraProperties)).forEach(property ->
                properties.put(property.substring(0, property.indexOf('=')), property));
        List<String> arguments = properties.values().stream().map(property -> "--" + property).toList();
        boolean withSpringSecurity = (ClusterNodeApplication.CONSOLE_SECURITY + "=true")
                .equals(properties.get(ClusterNodeApplication.CONSOLE_SECURITY));
        ClusterNode node = ClusterNode.start(instanceId, logDirectory.resolve(instanceId + ".log"), arguments,
                withSpringSecurity);
        nodes.put(instanceId, node);
        expectedAlive.add(instanceId);
    }

    /** Starts the nodes side by side and waits until each has registered. */
    void startNodes(List<String> instanceIds, String... extraProperties) {
        instanceIds.forEach(id -> startNode(id, extraProperties));
        instanceIds.forEach(this::awaitUp);
    }

    /**
     * Starts the nodes side by side as web applications, each on a free port of 127.0.0.1 with its health (details
     * included) at {@code /actuator/health}, and waits until each has registered; returns each one's base URI.
     */
    Map<String, URI> startWebNodes(List<String> instanceIds, String... extraProperties) {
        Map<String, URI> web = new LinkedHashMap<>();
        for (String id : instanceIds) {
            int port;
            try {
                port = ClusterAssertions.freePort();
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            startNode(id, Stream.concat(Stream.of("spring.main.web-application-type=servlet",
                    "server.address=127.0.0.1", "server.port=" + port,
                    "management.endpoint.health.show-details=always"), Stream.of(extraProperties))
                    .toArray(String[]::new));
            web.put(id, URI.create("http://127.0.0.1:" + port));
        }
        instanceIds.forEach(this::awaitUp);
        return web;
    }

    /** Waits until {@code done}, failing at once if a node that should run has died meanwhile. */
    void awaitWhileNodesLive(String what, Callable<Boolean> done) {
        awaitState(what, DEADLINE, Duration.ofMillis(200), done, Boolean::booleanValue);
    }

    /** Waits for the node's row in {@code outbox_instance}. */
    void awaitUp(String instanceId) {
        awaitState(instanceId + " registered in outbox_instance", NODE_START_DEADLINE, Duration.ofMillis(200),
                () -> isRegistered(instanceId), registered -> registered);
    }

    /** SIGKILL, then waits for the JVM to be gone. */
    void kill9(String instanceId) {
        expectedAlive.remove(instanceId);
        ClusterNode node = node(instanceId);
        node.signal("KILL");
        node.awaitExit(Duration.ofSeconds(30));
    }

    void sigstop(String instanceId) {
        node(instanceId).signal("STOP");
    }

    void sigcont(String instanceId) {
        node(instanceId).signal("CONT");
    }

    /** SIGTERM; the node shuts down gracefully in the background, see {@link #awaitExit(String)}. */
    void sigterm(String instanceId) {
        expectedAlive.remove(instanceId);
        node(instanceId).terminate();
    }

    int awaitExit(String instanceId) {
        return node(instanceId).awaitExit(GRACEFUL_SHUTDOWN_TIMEOUT.plus(DEADLINE));
    }

    /**
     * Ends every session the nodes have open on this (PostgreSQL) database with {@code pg_terminate_backend}, as an
     * administrator or a failover would; the test's own sessions stay. Returns how many were ended.
     */
    int terminateSessionsOf(List<String> instanceIds) {
        if (dialect != DatabaseDialect.POSTGRESQL) {
            throw new IllegalStateException("pg_terminate_backend is PostgreSQL's");
        }
        // The nodes name their sessions by application_name (see nodeProperties).
        String placeholders = String.join(", ", instanceIds.stream().map(id -> "?").toList());
        return jdbc.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database()"
                + " AND pid <> pg_backend_pid() AND application_name IN (" + placeholders + ")",
                (rs, row) -> rs.getBoolean(1), instanceIds.toArray()).stream().mapToInt(ended -> ended ? 1 : 0).sum();
    }

    // ---- records ----------------------------------------------------------------------------------------------

    /**
     * Inserts {@code recordsPerAggregate} more records for each of {@code aggregates} aggregates, round by round (the
     * next record of every aggregate, then the one after), so each aggregate's sequence numbers follow its order.
     * Continues the numbering of earlier calls. 1,000 rows per transaction.
     */
    void insertRecords(int aggregates, int recordsPerAggregate) {
        int firstRound = roundsInserted;
        try (Connection connection = database.dataSource().getConnection()) {
            connection.setAutoCommit(false);
            String sql = INSERT_RECORD.replace("{now}",
                    dialect == DatabaseDialect.POSTGRESQL ? "now()" : "UTC_TIMESTAMP(6)");
            try (PreparedStatement insert = connection.prepareStatement(sql)) {
                int pending = 0;
                for (int round = firstRound; round < firstRound + recordsPerAggregate; round++) {
                    for (int aggregate = 0; aggregate < aggregates; aggregate++) {
                        String aggregateId = "aggregate-" + aggregate;
                        addRecord(insert, aggregateId, "Test", "{\"aggregate\":" + aggregate + ",\"n\":" + round
                                + "}", recordHandlerId);
                        if (projecting) {
                            addRecord(insert, aggregateId, ProjectionWriter.HANDLER_ID, "{\"round\":" + round + "}",
                                    ProjectionWriter.HANDLER_ID);
                            pending++;
                        }
                        if (++pending >= ROWS_PER_TRANSACTION) {
                            insert.executeBatch();
                            connection.commit();
                            pending = 0;
                        }
                    }
                }
                insert.executeBatch();
                connection.commit();
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not insert outbox records", e);
        }
        roundsInserted += recordsPerAggregate;
        long inserted = (long) aggregates * recordsPerAggregate;
        recordsInserted += projecting ? 2 * inserted : inserted;
        projectionRecordsInserted += projecting ? inserted : 0;
    }

    /**
     * Inserts one record of {@code eventType} for each of {@code aggregates} aggregates named {@code <prefix>-<n>},
     * addressed like those of {@link #insertRecords}; returns their ids in aggregate order.
     */
    List<String> insertRecordsOfType(String eventType, String prefix, int aggregates) {
        List<String> ids = new ArrayList<>();
        try (Connection connection = database.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement(INSERT_RECORD.replace("{now}",
                        dialect == DatabaseDialect.POSTGRESQL ? "now()" : "UTC_TIMESTAMP(6)"))) {
            for (int aggregate = 0; aggregate < aggregates; aggregate++) {
                ids.add(addRecord(insert, prefix + "-" + aggregate, eventType, "{\"aggregate\":" + aggregate + "}",
                        recordHandlerId));
            }
            insert.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("Could not insert records of " + eventType, e);
        }
        recordsInserted += aggregates;
        return ids;
    }

    /**
     * Inserts a record for the {@link ProjectionWriter} in each partition, of aggregates whose first call on
     * {@code instanceId} holds its transaction open ({@link ProjectionWriter#heldAggregate}): whichever partitions
     * the instance owns when it comes to them, it holds one.
     */
    void insertHeldProjectionRecords(String instanceId) {
        Map<Integer, String> byPartition = new TreeMap<>();
        for (int n = 0; byPartition.size() < PartitionHasher.PARTITION_COUNT; n++) {
            String aggregateId = ProjectionWriter.heldAggregate(instanceId, n);
            byPartition.putIfAbsent(PartitionHasher.partitionOf(aggregateId), aggregateId);
        }
        try (Connection connection = database.dataSource().getConnection();
                PreparedStatement insert = connection.prepareStatement(INSERT_RECORD.replace("{now}",
                        dialect == DatabaseDialect.POSTGRESQL ? "now()" : "UTC_TIMESTAMP(6)"))) {
            for (String aggregateId : byPartition.values()) {
                addRecord(insert, aggregateId, ProjectionWriter.HANDLER_ID, "{\"round\":0}",
                        ProjectionWriter.HANDLER_ID);
            }
            insert.executeBatch();
        } catch (SQLException e) {
            throw new IllegalStateException("Could not insert the held projection records", e);
        }
        recordsInserted += byPartition.size();
        projectionRecordsInserted += byPartition.size();
    }

    /** Adds a record to the batch; returns its id. */
    private static String addRecord(PreparedStatement insert, String aggregateId, String eventType, String payload,
            String handlerId) throws SQLException {
        String id = UUID.randomUUID().toString();
        insert.setString(1, id);
        insert.setString(2, aggregateId);
        insert.setString(3, eventType);
        insert.setString(4, payload);
        insert.setInt(5, PartitionHasher.partitionOf(aggregateId));
        insert.setString(6, handlerId);
        insert.addBatch();
        return id;
    }

    /**
     * Records inserted from now on go twice into the outbox: once as before (to the nodes' record processor, which
     * writes {@code handled_record}), once addressed to the transactional {@link ProjectionWriter} of the nodes
     * started with {@code cluster.projection=true} (PostgreSQL only). Each copy is a lane of its own.
     */
    void projectEveryRecord() {
        this.projecting = true;
    }

    /** Records inserted from now on are addressed to {@code handlerId} (a publisher's) instead of the processor. */
    void addressRecordsTo(String handlerId) {
        this.recordHandlerId = handlerId;
    }

    /** Every record as stored now. */
    List<OutboxRecord> storedRecords() {
        return jdbc.query("SELECT id, aggregate_id, event_type, payload, partition_no, created_at, status,"
                + " sequence_no, handler_id FROM outbox_record", (rs, row) -> OutboxRecord.restore()
                .id(rs.getString("id")).aggregateId(rs.getString("aggregate_id"))
                .eventType(rs.getString("event_type")).payload(rs.getString("payload"))
                .partition(rs.getInt("partition_no")).createdAt(instant(rs, "created_at"))
                .status(OutboxRecordStatus.valueOf(rs.getString("status"))).sequence(rs.getLong("sequence_no"))
                .handlerId(rs.getString("handler_id")).build());
    }

    /** Rows inserted into outbox_record, the projection handler's copies included. */
    long recordsInserted() {
        return recordsInserted;
    }

    /** Records inserted for the record processor (or the handler of {@link #addressRecordsTo}), one call each. */
    long processorRecordsInserted() {
        return recordsInserted - projectionRecordsInserted;
    }

    long projectionRecordsInserted() {
        return projectionRecordsInserted;
    }

    long completedCount() {
        return count("SELECT COUNT(*) FROM outbox_record WHERE status = 'COMPLETED'");
    }

    /** Waits until at least {@code count} records are COMPLETED; returns how many are. */
    long awaitCompleted(long count) {
        return awaitState(count + " records completed", DEADLINE, Duration.ofMillis(100), this::completedCount,
                completed -> completed >= count);
    }

    /** Waits until every inserted record is COMPLETED (and fails at once when one has FAILED). */
    void awaitAllCompleted() {
        awaitState("all " + recordsInserted + " records completed", DEADLINE, Duration.ofMillis(250),
                this::statusCounts, counts -> {
                    if (counts.containsKey("FAILED")) {
                        throw new AssertionError("records FAILED: " + counts);
                    }
                    return counts.getOrDefault("COMPLETED", 0L) == recordsInserted;
                });
    }

    Map<String, Long> statusCounts() {
        return countsBy("SELECT status, COUNT(*) FROM outbox_record GROUP BY status");
    }

    // ---- partitions and instances -----------------------------------------------------------------------------

    PartitionTable partitionTable() {
        return PartitionTable.read(jdbc);
    }

    /** Waits until exactly these instances own all partitions, 256/n each (rounded either way). */
    PartitionTable awaitBalanced(String... instanceIds) {
        List<String> ids = List.of(instanceIds);
        return awaitState("partitions balanced among " + ids, DEADLINE, Duration.ofMillis(200), this::partitionTable,
                table -> table.isBalancedAmong(ids));
    }

    /**
     * Waits until every one of {@code partitions} is owned by another instance than {@code formerOwner}, polling every
     * 100 ms so that the caller can time the takeover; returns the table at that moment.
     */
    PartitionTable awaitTakenOver(String formerOwner, Set<Integer> partitions) {
        return awaitState(partitions.size() + " partitions of " + formerOwner + " owned by others", DEADLINE,
                Duration.ofMillis(100), this::partitionTable,
                table -> table.allOwnedByOthersThan(formerOwner, partitions));
    }

    boolean isRegistered(String instanceId) {
        try {
            return count("SELECT COUNT(*) FROM outbox_instance WHERE instance_id = ?", instanceId) == 1;
        } catch (BadSqlGrammarException noTableYet) {
            return false; // on an empty database, until a node has created the tables
        }
    }

    /** The latest heartbeat of the instance: its row, or the rows deleted so far (see {@code instance_departure}). */
    Instant lastHeartbeatOf(String instanceId) {
        List<Instant> last = jdbc.query("SELECT MAX(t) AS t FROM ("
                + " SELECT last_heartbeat AS t FROM outbox_instance WHERE instance_id = ?"
                + " UNION ALL SELECT last_heartbeat FROM instance_departure WHERE instance_id = ?) AS heartbeats",
                (rs, row) -> instant(rs, "t"), instanceId, instanceId);
        if (last.isEmpty() || last.get(0) == null) {
            throw new IllegalStateException(instanceId + " never heartbeated");
        }
        return last.get(0);
    }

    /** An instance row deleted: by the instance itself (graceful stop) or by another one (stale). */
    record Departure(String instanceId, Instant lastHeartbeat, String removedBy, Instant removedAt) {
    }

    List<Departure> departuresOf(String instanceId) {
        return jdbc.query("SELECT instance_id, last_heartbeat, removed_by, removed_at FROM instance_departure"
                + " WHERE instance_id = ? ORDER BY id", (rs, row) -> new Departure(rs.getString("instance_id"),
                        instant(rs, "last_heartbeat"), rs.getString("removed_by"), instant(rs, "removed_at")),
                instanceId);
    }

    /** A claim (new owner, epoch + 1) or a release (owner to none) of a partition. */
    record OwnershipChange(int partition, String oldOwner, String newOwner, long oldEpoch, long newEpoch,
            String changedBy, Instant changedAt) {

        boolean isRelease() {
            return newOwner == null;
        }
    }

    List<OwnershipChange> ownershipChanges() {
        return ownershipChangesAfter(0);
    }

    /** The changes recorded after the one {@link #lastOwnershipChange()} named, in their order. */
    List<OwnershipChange> ownershipChangesAfter(long changeId) {
        return jdbc.query("SELECT partition_no, old_owner, new_owner, old_epoch, new_epoch, changed_by, changed_at"
                + " FROM ownership_change WHERE id > ? ORDER BY id", (rs, row) -> new OwnershipChange(
                        rs.getInt("partition_no"), rs.getString("old_owner"), rs.getString("new_owner"),
                        rs.getLong("old_epoch"), rs.getLong("new_epoch"), rs.getString("changed_by"),
                        instant(rs, "changed_at")), changeId);
    }

    /** The id of the latest ownership change recorded; 0 before the first. */
    long lastOwnershipChange() {
        return count("SELECT COALESCE(MAX(id), 0) FROM ownership_change");
    }

    // ---- what the handlers saw ---------------------------------------------------------------------------------

    long distinctRecordsHandled() {
        return count("SELECT COUNT(DISTINCT record_id) FROM handled_record");
    }

    long handlerCalls() {
        return count("SELECT COUNT(*) FROM handled_record");
    }

    Map<String, Long> handlerCallsPerInstance() {
        return countsBy("SELECT instance_id, COUNT(*) FROM handled_record GROUP BY instance_id");
    }

    /** A record handed to the handlers more than once, with the handling instances in call order. */
    record Duplicate(String recordId, List<String> handledBy) {
    }

    List<Duplicate> duplicates() {
        String handlers = dialect == DatabaseDialect.POSTGRESQL ? "string_agg(instance_id, ',' ORDER BY id)"
                : "GROUP_CONCAT(instance_id ORDER BY id SEPARATOR ',')";
        return jdbc.query("SELECT record_id, " + handlers + " AS handlers"
                + " FROM handled_record GROUP BY record_id HAVING COUNT(*) > 1 ORDER BY MIN(id)",
                (rs, row) -> new Duplicate(rs.getString("record_id"), List.of(rs.getString("handlers").split(","))));
    }

    /**
     * For each aggregate, its handler calls in call order (the BIGSERIAL id), keeping only each record's first call,
     * must have strictly increasing sequence numbers. Returns the violations, empty when the order was kept.
     */
    List<String> orderViolations() {
        Map<String, Long> lastSequence = new HashMap<>();
        Set<String> seen = new HashSet<>();
        List<String> violations = new ArrayList<>();
        jdbc.query("SELECT record_id, aggregate_id, sequence_no, instance_id FROM handled_record ORDER BY id", rs -> {
            if (!seen.add(rs.getString("record_id"))) {
                return;
            }
            String aggregate = rs.getString("aggregate_id");
            long sequence = rs.getLong("sequence_no");
            Long previous = lastSequence.put(aggregate, sequence);
            if (previous != null && sequence <= previous) {
                violations.add(aggregate + ": sequence " + sequence + " (by " + rs.getString("instance_id")
                        + ") first handled after sequence " + previous);
            }
        });
        return violations;
    }

    /** A handler call as recorded by {@link HandledRecordWriter}. */
    record HandlerCall(String recordId, int partition, long epoch, Instant invokedAt) {
    }

    List<HandlerCall> callsOf(String instanceId, Instant invokedAfter) {
        return jdbc.query("SELECT record_id, partition_no, epoch, invoked_at FROM handled_record"
                + " WHERE instance_id = ? AND invoked_at > ? ORDER BY id", (rs, row) -> new HandlerCall(
                        rs.getString("record_id"), rs.getInt("partition_no"), rs.getLong("epoch"),
                        instant(rs, "invoked_at")),
                instanceId, dialect.timestampValue(invokedAfter));
    }

    /** One handler call of a record, by any instance. */
    record RecordCall(String instanceId, long epoch, Instant invokedAt) {
    }

    /** Every handler call of the record, in the order they were recorded. */
    List<RecordCall> callsOfRecord(String recordId) {
        return jdbc.query("SELECT instance_id, epoch, invoked_at FROM handled_record WHERE record_id = ? ORDER BY id",
                (rs, row) -> new RecordCall(rs.getString("instance_id"), rs.getLong("epoch"),
                        instant(rs, "invoked_at")), recordId);
    }

    /**
     * Handler calls of the instance begun before {@code begunBefore} whose row was written after {@code writtenAfter}:
     * calls that were in flight across a freeze.
     */
    long callsSpanning(String instanceId, Instant begunBefore, Instant writtenAfter) {
        return count("SELECT COUNT(*) FROM handled_record WHERE instance_id = ? AND invoked_at < ? AND handled_at > ?",
                instanceId, dialect.timestampValue(begunBefore), dialect.timestampValue(writtenAfter));
    }

    /** Every line of the node's log. */
    List<String> logLinesOf(String instanceId) {
        return node(instanceId).logLines();
    }

    /** The nodes started so far, in start order. */
    List<String> nodeIds() {
        return List.copyOf(nodes.keySet());
    }

    JdbcTemplate jdbc() {
        return jdbc;
    }

    /** Lines of the node's log that contain {@code text}. */
    /** The size of the node's log now, from which {@link #awaitLogLine} looks. */
    long logMark(String instanceId) {
        return node(instanceId).logSize();
    }

    /**
     * Waits until the node has logged a line matching {@code pattern} after {@code mark} ({@link #logMark}), looking
     * every 2 ms at what it logged since the last look, so as to act on the line within milliseconds.
     *
     * @return the first match
     */
    Matcher awaitLogLine(String instanceId, long mark, Pattern pattern) {
        long[] readUpTo = {mark};
        return awaitState(instanceId + " logged " + pattern, DEADLINE, Duration.ofMillis(2),
                () -> node(instanceId).loggedSince(readUpTo, pattern), Optional::isPresent).orElseThrow();
    }

    long logLinesContaining(String instanceId, String text) {
        return node(instanceId).logLines().stream().filter(line -> line.contains(text)).count();
    }

    // ---- status writes (fencing) ------------------------------------------------------------------------------

    /**
     * Status writes made by an instance that did not own the record's partition when the write happened: each one
     * is a write that fencing should have refused. Empty when fencing held.
     */
    List<String> statusWritesByNonOwners() {
        return jdbc.query("SELECT record_id, partition_no, old_status, new_status, writer, owner_at_write,"
                + " epoch_at_write, written_at FROM status_write"
                + (dialect == DatabaseDialect.POSTGRESQL ? " WHERE owner_at_write IS DISTINCT FROM writer"
                        : " WHERE NOT (owner_at_write <=> writer)") + " ORDER BY id LIMIT 20",
                (rs, row) -> rs.getString("writer") + " wrote " + rs.getString("old_status") + "->"
                        + rs.getString("new_status") + " of record " + rs.getString("record_id") + " in partition "
                        + rs.getInt("partition_no") + " owned by " + rs.getString("owner_at_write") + " (epoch "
                        + rs.getLong("epoch_at_write") + ") at " + instant(rs, "written_at"));
    }

    long statusWritesBy(String instanceId, Instant after) {
        return count("SELECT COUNT(*) FROM status_write WHERE writer = ? AND written_at > ?", instanceId,
                dialect.timestampValue(after));
    }

    /** Records whose status became COMPLETED more than once. */
    List<String> recordsCompletedTwice() {
        return jdbc.queryForList("SELECT record_id FROM status_write WHERE new_status = 'COMPLETED'"
                + " GROUP BY record_id HAVING COUNT(*) > 1", String.class);
    }

    // ---- waiting ----------------------------------------------------------------------------------------------

    /**
     * Polls {@code read} until {@code done} holds; fails at once when a node that should run has died or the waiting
     * thread is interrupted (a JUnit timeout: Awaitility itself would wait on), and on timeout with the last value
     * seen.
     */
    private <T> T awaitState(String what, Duration atMost, Duration pollInterval, Callable<T> read, Predicate<T> done) {
        Thread waiter = Thread.currentThread();
        AtomicReference<T> last = new AtomicReference<>();
        try {
            return await().alias(what).atMost(atMost).pollDelay(Duration.ZERO).pollInterval(pollInterval)
                    .until(() -> {
                        if (waiter.isInterrupted()) {
                            throw new IllegalStateException("interrupted while waiting for: " + what);
                        }
                        checkNodesAlive();
                        T value = read.call();
                        last.set(value);
                        return value;
                    }, done);
        } catch (ConditionTimeoutException e) {
            throw new AssertionError(what + ": not reached within " + atMost + "; last seen: " + last.get(), e);
        }
    }

    private void checkNodesAlive() {
        expectedAlive.forEach(id -> node(id).checkAlive());
    }

    private ClusterNode node(String instanceId) {
        ClusterNode node = nodes.get(instanceId);
        if (node == null) {
            throw new IllegalArgumentException("no node " + instanceId + " was started");
        }
        return node;
    }

    /** Kills every node still running, then drops the database, even on an interrupted (timed-out) test thread. */
    @Override
    public void close() {
        boolean interrupted = Thread.interrupted();
        try {
            RuntimeException failure = null;
            for (ClusterNode node : nodes.values()) {
                try {
                    node.destroyForcibly();
                } catch (RuntimeException e) {
                    failure = e;
                }
                interrupted |= Thread.interrupted();
            }
            if (failure != null) {
                throw failure;
            }
        } finally {
            database.close();
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** Runs a query of (key, count) rows into a sorted map. */
    private Map<String, Long> countsBy(String sql) {
        return jdbc.query(sql, (rs, row) -> Map.entry(rs.getString(1), rs.getLong(2))).stream()
                .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue, Long::sum, TreeMap::new));
    }

    long count(String sql, Object... arguments) {
        Long count = jdbc.queryForObject(sql, Long.class, arguments);
        return count == null ? 0 : count;
    }

    private Instant instant(ResultSet rs, String column) throws SQLException {
        return dialect.readTimestamp(rs, column);
    }

    private static String resource(String name) {
        try (InputStream in = ClusterHarness.class.getClassLoader().getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException("missing test resource " + name);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void recreateDirectory(Path directory) {
        try {
            Files.createDirectories(directory);
            try (Stream<Path> files = Files.list(directory)) {
                for (Path file : files.toList()) {
                    Files.deleteIfExists(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
