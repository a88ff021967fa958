package dev.outbox.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.zaxxer.hikari.HikariDataSource;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.TestDatabase.Kind;
import dev.outbox.jdbc.testing.TestTables;
import java.io.InputStream;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.UUID;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.changelog.ChangeLogParameters;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.resource.ClassLoaderResourceAccessor;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The outbox changelog on every database kind tests run against, applied through {@link OutboxSchemaInitializer}. */
class SchemaChangelogTest {

    /** Changesets every database runs (grows with every new changeset); PostgreSQL runs the partial indexes too. */
    private static final int COMMON_CHANGESETS = 16;
    private static final int POSTGRES_ONLY_CHANGESETS = 5;

    /** An application changelog that includes the outbox master between two changesets of its own. */
    static final String APP_CHANGELOG = "dev/outbox/jdbc/app-changelog-master.xml";
    static final int APP_CHANGESETS = 2;

    private static final OffsetDateTime MICROS = OffsetDateTime.parse("2026-01-02T03:04:05.123456Z");

    @ParameterizedTest
    @EnumSource(Kind.class)
    void createsTheThreeTablesWithExactlyTheExpectedColumns(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            // MariaDB and MySQL have no zoned timestamp: their DATETIME(6) columns hold UTC.
            String timestamp = kind == Kind.MARIADB ? "DATETIME(6)" : "TIMESTAMP(6) WITH TIME ZONE";
            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(outboxTables(connection))
                        .containsExactlyInAnyOrder("outbox_record", "outbox_instance", "outbox_partition");

                Map<String, String> record = new LinkedHashMap<>();
                record.put("id", "VARCHAR(36) NOT NULL");
                record.put("sequence_no", "BIGINT NOT NULL GENERATED");
                record.put("status", "VARCHAR(20) NOT NULL");
                record.put("aggregate_id", "VARCHAR(255) NOT NULL");
                record.put("event_type", "VARCHAR(255) NOT NULL");
                record.put("payload", "LONG TEXT NOT NULL");
                record.put("partition_no", "INT NOT NULL");
                record.put("created_at", timestamp + " NOT NULL");
                record.put("completed_at", timestamp + " NULL");
                record.put("retry_count", "INT NOT NULL");
                record.put("next_retry_at", timestamp + " NOT NULL");
                record.put("last_error", "VARCHAR(2000) NULL");
                record.put("trace_context", "VARCHAR(1000) NULL");
                record.put("handler_id", "VARCHAR(255) NOT NULL");
                record.put("headers", "VARCHAR(4000) NULL");
                record.put("first_deferred_at", timestamp + " NULL");
                assertThat(columns(connection, "outbox_record")).isEqualTo(record);

                Map<String, String> instance = new LinkedHashMap<>();
                instance.put("instance_id", "VARCHAR(255) NOT NULL");
                instance.put("hostname", "VARCHAR(255) NOT NULL");
                instance.put("port", "INT NOT NULL");
                instance.put("status", "VARCHAR(50) NOT NULL");
                instance.put("started_at", timestamp + " NOT NULL");
                instance.put("last_heartbeat", timestamp + " NOT NULL");
                instance.put("created_at", timestamp + " NOT NULL");
                instance.put("updated_at", timestamp + " NOT NULL");
                instance.put("handler_ids", "LONG TEXT NULL");
                instance.put("event_types", "LONG TEXT NULL");
                instance.put("record_processor", "BOOLEAN NULL");
                instance.put("app_version", "VARCHAR(255) NULL");
                instance.put("records_completed", "BIGINT NULL");
                assertThat(columns(connection, "outbox_instance")).isEqualTo(instance);

                Map<String, String> partition = new LinkedHashMap<>();
                partition.put("partition_no", "INT NOT NULL");
                partition.put("owner_instance_id", "VARCHAR(255) NULL");
                partition.put("epoch", "BIGINT NOT NULL");
                partition.put("updated_at", timestamp + " NOT NULL");
                assertThat(columns(connection, "outbox_partition")).isEqualTo(partition);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void createsTheNamedKeysAndIndexes(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            try (Connection connection = db.dataSource().getConnection()) {
                // MariaDB names every primary key PRIMARY, whatever the changelog asks.
                boolean namedPrimaryKeys = kind != Kind.MARIADB;
                assertThat(keyConstraints(connection, "outbox_record")).containsOnly(
                        Map.entry(namedPrimaryKeys ? "pk_outbox_record" : "primary", "PRIMARY KEY"),
                        Map.entry("uq_outbox_record_sequence_no", "UNIQUE"));
                assertThat(keyConstraints(connection, "outbox_instance"))
                        .containsOnly(Map.entry(namedPrimaryKeys ? "pk_outbox_instance" : "primary", "PRIMARY KEY"));
                assertThat(keyConstraints(connection, "outbox_partition"))
                        .containsOnly(Map.entry(namedPrimaryKeys ? "pk_outbox_partition" : "primary", "PRIMARY KEY"));
                assertThat(primaryKey(connection, "outbox_record")).containsExactly("id");
                assertThat(primaryKey(connection, "outbox_instance")).containsExactly("instance_id");
                assertThat(primaryKey(connection, "outbox_partition")).containsExactly("partition_no");

                assertThat(indexes(connection, "outbox_record"))
                        .containsEntry("idx_outbox_record_status_seq", List.of("status", "sequence_no"))
                        .containsEntry("idx_outbox_record_aggregate_seq", List.of("aggregate_id", "sequence_no"));
                if (kind == Kind.POSTGRES) {
                    // Changeset 010 drops the (partition_no, status, next_retry_at) index no PostgreSQL statement used.
                    assertThat(indexes(connection, "outbox_record"))
                            .doesNotContainKey("idx_outbox_record_partition_status_retry")
                            .containsEntry("idx_outbox_record_new_seq", List.of("sequence_no"))
                            .containsEntry("idx_outbox_record_new_retry", List.of("next_retry_at"))
                            .containsEntry("idx_outbox_record_failed_seq", List.of("sequence_no"))
                            .containsEntry("idx_outbox_record_open_aggregate_seq",
                                    List.of("aggregate_id", "sequence_no"));
                    assertThat(partialIndexPredicate(connection, "idx_outbox_record_new_seq"))
                            .isEqualTo("((status)::text = 'NEW'::text)");
                    assertThat(partialIndexPredicate(connection, "idx_outbox_record_new_retry"))
                            .isEqualTo("((status)::text = 'NEW'::text)");
                    assertThat(partialIndexPredicate(connection, "idx_outbox_record_failed_seq"))
                            .isEqualTo("((status)::text = 'FAILED'::text)");
                } else {
                    assertThat(indexes(connection, "outbox_record")).containsEntry(
                            "idx_outbox_record_partition_status_retry", List.of("partition_no", "status", "next_retry_at"));
                }
                if (kind == Kind.POSTGRES) {
                    assertThat(partialIndexPredicate(connection, "idx_outbox_record_open_aggregate_seq"))
                            .isEqualTo("((status)::text = ANY ((ARRAY['NEW'::character varying, "
                                    + "'FAILED'::character varying])::text[]))");
                }
                assertThat(indexes(connection, "outbox_instance"))
                        .containsEntry("idx_outbox_instance_status_heartbeat", List.of("status", "last_heartbeat"))
                        .containsEntry("idx_outbox_instance_last_heartbeat", List.of("last_heartbeat"));
                assertThat(indexes(connection, "outbox_partition"))
                        .containsEntry("idx_outbox_partition_owner", List.of("owner_instance_id"));
            }
        }
    }

    /**
     * Released changesets are never edited, so their checksums never change: a database that applied them must
     * accept the changelog of every later version. The checksums are kept per database in
     * {@code changelog-checksums-<kind>.properties} (the changelog's column types differ per database, and Liquibase
     * checksums a changeset with its properties expanded); a new changeset adds its line there.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void releasedChangesetsKeepTheirChecksums(Kind kind) throws Exception {
        Properties released = new Properties();
        String resource = "dev/outbox/jdbc/changelog-checksums-" + kind.name().toLowerCase(Locale.ROOT) + ".properties";
        try (InputStream in = getClass().getClassLoader().getResourceAsStream(resource)) {
            assertThat(in).as(resource).isNotNull();
            released.load(in);
        }
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());
            Map<String, String> applied = new TreeMap<>();
            try (Connection connection = db.dataSource().getConnection(); Statement statement =
                    connection.createStatement(); ResultSet rows = statement.executeQuery(
                            "SELECT id, md5sum FROM DATABASECHANGELOG WHERE author = 'outbox'")) {
                while (rows.next()) {
                    applied.put(rows.getString(1), rows.getString(2));
                }
            }
            Map<String, String> expected = new TreeMap<>();
            released.stringPropertyNames().forEach(id -> expected.put(id, released.getProperty(id)));
            assertThat(applied).as("checksums of the outbox changesets on %s", kind).isEqualTo(expected);
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void insertsPartitions0To255UnownedAtEpoch0(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            try (Connection connection = db.dataSource().getConnection();
                    Statement statement = connection.createStatement();
                    ResultSet rows = statement.executeQuery(
                            "SELECT partition_no, owner_instance_id, epoch, updated_at FROM outbox_partition"
                                    + " ORDER BY partition_no")) {
                int expected = 0;
                while (rows.next()) {
                    assertThat(rows.getInt("partition_no")).isEqualTo(expected++);
                    assertThat(rows.getString("owner_instance_id")).isNull();
                    assertThat(rows.getLong("epoch")).isZero();
                    assertThat(rows.getObject("updated_at", OffsetDateTime.class)).isNotNull();
                }
                assertThat(expected).isEqualTo(256);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void generatesStrictlyIncreasingSequenceNumbersInInsertOrder(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            List<String> inserted = new ArrayList<>();
            try (Connection connection = db.dataSource().getConnection()) {
                for (int i = 0; i < 20; i++) {
                    // Random ids, so that neither id nor insert time order the rows: only sequence_no does.
                    String id = UUID.randomUUID().toString();
                    insertRecord(connection, id, "aggregate-" + (i % 3), MICROS);
                    inserted.add(id);
                }

                List<String> bySequence = new ArrayList<>();
                long previous = Long.MIN_VALUE;
                try (Statement statement = connection.createStatement();
                        ResultSet rows = statement.executeQuery(
                                "SELECT id, sequence_no, retry_count FROM outbox_record ORDER BY sequence_no")) {
                    while (rows.next()) {
                        long sequence = rows.getLong("sequence_no");
                        assertThat(sequence).isGreaterThan(previous);
                        previous = sequence;
                        bySequence.add(rows.getString("id"));
                        assertThat(rows.getInt("retry_count")).as("retry_count default").isZero();
                    }
                }
                assertThat(bySequence).isEqualTo(inserted);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void timestampsKeepMicroseconds(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            try (Connection connection = db.dataSource().getConnection()) {
                insertRecord(connection, "r1", "a", MICROS);
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE outbox_record SET completed_at = ? WHERE id = ?")) {
                    update.setObject(1, MICROS.plusNanos(1_000));
                    update.setString(2, "r1");
                    assertThat(update.executeUpdate()).isOne();
                }
                try (PreparedStatement update = connection.prepareStatement(
                        "UPDATE outbox_partition SET updated_at = ? WHERE partition_no = 7")) {
                    update.setObject(1, MICROS);
                    assertThat(update.executeUpdate()).isOne();
                }

                try (Statement statement = connection.createStatement();
                        ResultSet row = statement.executeQuery(
                                "SELECT created_at, next_retry_at, completed_at FROM outbox_record WHERE id = 'r1'")) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getObject("created_at", OffsetDateTime.class)).isEqualTo(MICROS);
                    assertThat(row.getObject("next_retry_at", OffsetDateTime.class)).isEqualTo(MICROS);
                    assertThat(row.getObject("completed_at", OffsetDateTime.class))
                            .isEqualTo(OffsetDateTime.parse("2026-01-02T03:04:05.123457Z"));
                }
                try (Statement statement = connection.createStatement();
                        ResultSet row = statement.executeQuery(
                                "SELECT updated_at FROM outbox_partition WHERE partition_no = 7")) {
                    assertThat(row.next()).isTrue();
                    assertThat(row.getObject("updated_at", OffsetDateTime.class)).isEqualTo(MICROS);
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void applyingAgainChangesNothingAndLeavesThePoolOpen(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource())).isEqualTo(changesets(kind));
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource())).isZero();
            OutboxSchemaInitializer.apply(db.dataSource());

            HikariDataSource pool = db.dataSource().unwrap(HikariDataSource.class);
            assertThat(pool.isClosed()).isFalse();
            assertThat(pool.getHikariPoolMXBean().getActiveConnections()).as("connections still borrowed").isZero();
            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM outbox_partition")).isEqualTo(256);
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG")).isEqualTo(changesets(kind));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void initializerSkipsWhatTheApplicationsChangelogAlreadyApplied(Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind)) {
            liquibaseUpdate(db.dataSource(), APP_CHANGELOG);

            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG"))
                        .isEqualTo(changesets(kind) + APP_CHANGESETS);
                // Recorded under the outbox files' logical paths, not under the application's include.
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG"
                        + " WHERE FILENAME LIKE 'db/changelog/outbox/changes/%'")).isEqualTo(changesets(kind));
            }

            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource())).isZero();

            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG"))
                        .isEqualTo(changesets(kind) + APP_CHANGESETS);
                assertThat(count(connection, "SELECT COUNT(*) FROM outbox_partition")).isEqualTo(256);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void applicationsChangelogSkipsWhatTheInitializerAlreadyApplied(Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxSchemaInitializer.apply(db.dataSource());

            liquibaseUpdate(db.dataSource(), APP_CHANGELOG);

            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG"))
                        .isEqualTo(changesets(kind) + APP_CHANGESETS);
                assertThat(count(connection, "SELECT COUNT(*) FROM customer_order")).isZero();
            }
        }
    }

    /**
     * Several sets of outbox tables in one database: the default ones, a prefix beside them (its own changelog tables,
     * its own index and key names) and a prefix in a schema of its own. Each is applied once and tracked apart.
     */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void severalTableSetsShareADatabaseEachAppliedAndTrackedApart(Kind kind) throws SQLException {
        try (TestDatabase db = TestDatabase.create(kind)) {
            OutboxTables billing = OutboxTables.builder().tablePrefix("billing_").build();
            OutboxTables orders = TestTables.prefixed(db);

            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource())).isEqualTo(changesets(kind));
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource(), billing)).isEqualTo(changesets(kind));
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource(), orders)).isEqualTo(changesets(kind));
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource(), billing)).isZero();
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource(), orders)).isZero();
            assertThat(OutboxSchemaInitializer.applyCounting(db.dataSource())).isZero();

            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM DATABASECHANGELOG")).isEqualTo(changesets(kind));
                assertThat(count(connection, "SELECT COUNT(*) FROM billing_changelog")).isEqualTo(changesets(kind));
                for (OutboxTables tables : List.of(OutboxTables.defaults(), billing, orders)) {
                    SqlStatements sql = DatabaseDialect.statements(connection.getMetaData(), tables);
                    assertThat(count(connection, "SELECT COUNT(*) FROM " + sql.partitionTable())).as("%s", tables)
                            .isEqualTo(256);
                    assertThat(count(connection, "SELECT COUNT(*) FROM " + sql.recordTable())).isZero();
                }
            }
        }
    }

    /** An application's own Liquibase names the tables through the changelog parameter. */
    @ParameterizedTest
    @EnumSource(Kind.class)
    void theApplicationsChangelogTakesThePrefixAsAParameter(Kind kind) throws Exception {
        try (TestDatabase db = TestDatabase.create(kind)) {
            liquibaseUpdate(db.dataSource(), APP_CHANGELOG,
                    Map.of(OutboxSchemaInitializer.TABLE_PREFIX_PARAMETER, "shop_"));

            try (Connection connection = db.dataSource().getConnection()) {
                assertThat(count(connection, "SELECT COUNT(*) FROM shop_partition")).isEqualTo(256);
                assertThat(outboxTables(connection)).isEmpty();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Kind.class)
    void closeDropsTheDatabase(Kind kind) throws SQLException {
        TestDatabase db = TestDatabase.create(kind);
        String name = db.databaseName();
        try (Connection connection = db.dataSource().getConnection()) {
            assertThat(connection.isValid(1)).isTrue();
        }
        db.close();
        db.close(); // a second close does nothing

        switch (kind) {
            case H2 -> assertThatThrownBy(() -> DriverManager.getConnection("jdbc:h2:mem:" + name + ";IFEXISTS=TRUE",
                    db.username(), db.password()).close())
                    .isInstanceOf(SQLException.class);
            case POSTGRES -> {
                try (TestDatabase other = TestDatabase.create(kind);
                        Connection connection = other.dataSource().getConnection();
                        PreparedStatement query = connection.prepareStatement(
                                "SELECT COUNT(*) FROM pg_database WHERE datname = ?")) {
                    query.setString(1, name);
                    try (ResultSet rows = query.executeQuery()) {
                        assertThat(rows.next()).isTrue();
                        assertThat(rows.getLong(1)).as("pg_database rows named %s", name).isZero();
                    }
                    query.setString(1, other.databaseName());
                    try (ResultSet rows = query.executeQuery()) {
                        assertThat(rows.next()).isTrue();
                        assertThat(rows.getLong(1)).as("the query sees live databases").isOne();
                    }
                }
            }
        }
    }

    @Test
    void failuresNameTheChangelog() {
        TestDatabase db = TestDatabase.create(Kind.H2);
        DataSource closedPool = db.dataSource();
        db.close();

        assertThatThrownBy(() -> OutboxSchemaInitializer.apply(closedPool))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining(OutboxSchemaInitializer.CHANGELOG)
                .hasCauseInstanceOf(SQLException.class);
    }

    private static void insertRecord(Connection connection, String id, String aggregateId, OffsetDateTime at)
            throws SQLException {
        try (PreparedStatement insert = connection.prepareStatement("INSERT INTO outbox_record"
                + " (id, status, aggregate_id, event_type, payload, partition_no, created_at, next_retry_at)"
                + " VALUES (?, 'NEW', ?, 'OrderPlaced', ?, ?, ?, ?)")) {
            insert.setString(1, id);
            insert.setString(2, aggregateId);
            insert.setString(3, "{\"id\":\"" + id + "\"}");
            insert.setInt(4, Math.floorMod(aggregateId.hashCode(), 256));
            insert.setObject(5, at);
            insert.setObject(6, at);
            assertThat(insert.executeUpdate()).isOne();
        }
    }

    /** Runs a changelog the way an application's own Liquibase would, without the initializer. */
    private static void liquibaseUpdate(DataSource dataSource, String changelog) throws Exception {
        liquibaseUpdate(dataSource, changelog, Map.of());
    }

    /** As an application's Liquibase given changelog parameters (spring.liquibase.parameters.*). */
    @SuppressWarnings("try") // ClassLoaderResourceAccessor.close() declares Exception
    private static void liquibaseUpdate(DataSource dataSource, String changelog, Map<String, String> parameters)
            throws Exception {
        try (ClassLoaderResourceAccessor resources =
                new ClassLoaderResourceAccessor(SchemaChangelogTest.class.getClassLoader())) {
            Map<String, Object> scope = new HashMap<>();
            scope.put(Scope.Attr.resourceAccessor.name(), resources);
            scope.put("liquibase.analytics.enabled", false);
            Scope.child(scope, () -> {
                try (Connection connection = dataSource.getConnection()) {
                    Database database = DatabaseFactory.getInstance()
                            .findCorrectDatabaseImplementation(new JdbcConnection(connection));
                    ChangeLogParameters changeLogParameters = new ChangeLogParameters(database);
                    parameters.forEach(changeLogParameters::set);
                    new CommandScope(UpdateCommandStep.COMMAND_NAME)
                            .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                            .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, changelog)
                            .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, changeLogParameters)
                            .execute();
                }
            });
        }
    }

    private static long count(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
            assertThat(rows.next()).isTrue();
            return rows.getLong(1);
        }
    }

    /** Tables of the current schema whose names start with outbox_, lower-cased. */
    private static List<String> outboxTables(Connection connection) throws SQLException {
        List<String> tables = new ArrayList<>();
        try (ResultSet rows = connection.getMetaData()
                .getTables(connection.getCatalog(), connection.getSchema(), "%", new String[] {"TABLE"})) {
            while (rows.next()) {
                String table = lower(rows.getString("TABLE_NAME"));
                if (table.startsWith("outbox_")) {
                    tables.add(table);
                }
            }
        }
        return tables;
    }

    /**
     * Column name to a database-neutral description such as {@code VARCHAR(36) NOT NULL}, so that H2 and PostgreSQL
     * can be held to the same expectation.
     */
    private static Map<String, String> columns(Connection connection, String table) throws SQLException {
        Map<String, String> columns = new LinkedHashMap<>();
        DatabaseMetaData metaData = connection.getMetaData();
        try (ResultSet rows = metaData.getColumns(connection.getCatalog(), connection.getSchema(),
                identifier(metaData, table), "%")) {
            while (rows.next()) {
                String type = neutralType(rows.getString("TYPE_NAME"), rows.getInt("COLUMN_SIZE"),
                        rows.getInt("DECIMAL_DIGITS"));
                String nullable = "YES".equals(rows.getString("IS_NULLABLE")) ? " NULL" : " NOT NULL";
                String generated = "YES".equals(rows.getString("IS_AUTOINCREMENT")) ? " GENERATED" : "";
                columns.put(lower(rows.getString("COLUMN_NAME")), type + nullable + generated);
            }
        }
        return columns;
    }

    private static String neutralType(String typeName, int size, int digits) {
        return switch (lower(typeName)) {
            // H2 holds payloads in a VARCHAR of the largest size it allows: as unbounded as PostgreSQL's TEXT.
            case "varchar", "character varying" -> size >= 1_000_000_000 ? "LONG TEXT" : "VARCHAR(" + size + ")";
            case "int4", "integer", "int" -> "INT";
            case "int8", "bigint" -> "BIGINT";
            // PostgreSQL's bool, H2's BOOLEAN, MariaDB's BIT(1): Liquibase's BOOLEAN on each.
            case "bool", "boolean" -> "BOOLEAN";
            case "bit" -> size == 1 ? "BOOLEAN" : "BIT(" + size + ")";
            case "text", "character large object", "longtext" -> "LONG TEXT";
            // MariaDB reports the display width: 19 characters and a point before the fractional digits.
            case "datetime" -> "DATETIME(" + (size > 19 ? size - 20 : 0) + ")";
            case "timestamptz", "timestamp with time zone" -> "TIMESTAMP(" + digits + ") WITH TIME ZONE";
            default -> typeName + "(" + size + "," + digits + ")";
        };
    }

    /** Primary key and unique constraints of a table: name to type, lower-case names. */
    private static Map<String, String> keyConstraints(Connection connection, String table) throws SQLException {
        Map<String, String> constraints = new TreeMap<>();
        try (PreparedStatement query = connection.prepareStatement(
                "SELECT constraint_name, constraint_type FROM information_schema.table_constraints"
                        + " WHERE table_schema = ? AND table_name = ?"
                        + " AND constraint_type IN ('PRIMARY KEY', 'UNIQUE')")) {
            // PostgreSQL and H2 keep tables in a schema; MariaDB in the database, the JDBC catalog.
            query.setString(1, connection.getSchema() != null ? connection.getSchema() : connection.getCatalog());
            query.setString(2, identifier(connection.getMetaData(), table));
            try (ResultSet rows = query.executeQuery()) {
                while (rows.next()) {
                    constraints.put(lower(rows.getString(1)), rows.getString(2));
                }
            }
        }
        return constraints;
    }

    private static List<String> primaryKey(Connection connection, String table) throws SQLException {
        Map<Short, String> columns = new TreeMap<>();
        DatabaseMetaData metaData = connection.getMetaData();
        try (ResultSet rows = metaData.getPrimaryKeys(connection.getCatalog(), connection.getSchema(),
                identifier(metaData, table))) {
            while (rows.next()) {
                columns.put(rows.getShort("KEY_SEQ"), lower(rows.getString("COLUMN_NAME")));
            }
        }
        return List.copyOf(columns.values());
    }

    /** Index name to its columns in index order, lower-case names. */
    /** The changesets the outbox changelog runs on {@code kind}. */
    static int changesets(Kind kind) {
        return kind == Kind.POSTGRES ? COMMON_CHANGESETS + POSTGRES_ONLY_CHANGESETS : COMMON_CHANGESETS;
    }

    private static String partialIndexPredicate(Connection connection, String index) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(
                "SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                        + " WHERE c.relname = ?")) {
            statement.setString(1, index);
            try (ResultSet row = statement.executeQuery()) {
                assertThat(row.next()).as(index).isTrue();
                return row.getString(1);
            }
        }
    }

    private static Map<String, List<String>> indexes(Connection connection, String table) throws SQLException {
        Map<String, Map<Short, String>> indexes = new TreeMap<>();
        DatabaseMetaData metaData = connection.getMetaData();
        try (ResultSet rows = metaData.getIndexInfo(connection.getCatalog(), connection.getSchema(),
                identifier(metaData, table), false, false)) {
            while (rows.next()) {
                String index = rows.getString("INDEX_NAME");
                if (index != null) {
                    indexes.computeIfAbsent(lower(index), name -> new TreeMap<>())
                            .put(rows.getShort("ORDINAL_POSITION"), lower(rows.getString("COLUMN_NAME")));
                }
            }
        }
        Map<String, List<String>> result = new TreeMap<>();
        indexes.forEach((name, columns) -> result.put(name, List.copyOf(columns.values())));
        return result;
    }

    /** An unquoted identifier as the database stores it: upper-case on H2, lower-case on PostgreSQL. */
    private static String identifier(DatabaseMetaData metaData, String name) throws SQLException {
        if (metaData.storesUpperCaseIdentifiers()) {
            return name.toUpperCase(Locale.ROOT);
        }
        return metaData.storesLowerCaseIdentifiers() ? name.toLowerCase(Locale.ROOT) : name;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }
}
