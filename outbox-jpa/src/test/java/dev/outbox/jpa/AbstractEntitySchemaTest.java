package dev.outbox.jpa;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import dev.outbox.OutboxRecord;
import dev.outbox.jpa.testing.TestDatabase;
import jakarta.persistence.EntityManagerFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.hibernate.tool.schema.spi.SchemaFilter;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.orm.jpa.LocalContainerEntityManagerFactoryBean;
import org.springframework.orm.jpa.persistenceunit.PersistenceManagedTypes;
import org.springframework.orm.jpa.vendor.HibernateJpaVendorAdapter;

/**
 * {@link OutboxRecordEntity} against the schema the changelog creates: an application that lets Hibernate validate
 * or update its schema must find the outbox tables accepted as they are, and one that lets Hibernate create them must
 * get the changelog's column types.
 */
abstract class AbstractEntitySchemaTest {

    private static final String HBM2DDL_AUTO = "hibernate.hbm2ddl.auto";
    private static final String SCHEMA_FILTER_PROVIDER = "hibernate.hbm2ddl.schema_filter_provider";

    /** A fresh database per test: a failing update test alters the schema. */
    private TestDatabase database;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeEach
    final void createSchema() {
        database = TestDatabase.create(databaseKind());
        OutboxSchemaInitializer.apply(database.dataSource());
    }

    @AfterEach
    final void dropDatabase() {
        database.close();
    }

    @Test
    final void schemaValidationAcceptsTheChangelogSchema() {
        assertThatCode(() -> entityManagerFactory(database, Map.of(HBM2DDL_AUTO, "validate")).destroy())
                .doesNotThrowAnyException();
    }

    @Test
    final void schemaUpdateWouldIssueNoDdl(@TempDir Path directory) throws IOException {
        assertThat(updateScript(directory, Map.of())).as("DDL of hbm2ddl.auto=update").isEmpty();
    }

    /** An application-wide preference for Instant columns must not reach the outbox's timestamps. */
    @Test
    final void theApplicationsInstantPreferenceChangesNoColumn(@TempDir Path directory)
            throws IOException, SQLException {
        Map<String, String> plainTimestamps = Map.of("hibernate.type.preferred_instant_jdbc_type", "TIMESTAMP");

        assertThat(updateScript(directory, plainTimestamps)).as("DDL of hbm2ddl.auto=update").isEmpty();
        assertThat(createdRecordTypes(plainTimestamps)).isEqualTo(recordTypes(outboxColumns(database)));
    }

    @Test
    final void schemaUpdateChangesNoColumn() throws SQLException {
        Map<String, ColumnShape> before = outboxColumns(database);
        assertThat(before).containsKeys("outbox_record.payload", "outbox_record.handler_id");

        entityManagerFactory(database, Map.of(HBM2DDL_AUTO, "update")).destroy();

        assertThat(outboxColumns(database)).isEqualTo(before);
    }

    /** The defect as an application meets it: update on an empty table must not shrink the payload column. */
    @Test
    final void aPayloadAtTheDefaultLimitSavesAfterSchemaUpdate() {
        LocalContainerEntityManagerFactoryBean factory = entityManagerFactory(database,
                Map.of(HBM2DDL_AUTO, "update"));
        try {
            EntityManagerFactory entityManagerFactory = Objects.requireNonNull(factory.getObject());
            JpaOutboxRecordRepository repository = JpaOutboxRecordRepository.create(entityManagerFactory,
                    new JpaTransactionManager(entityManagerFactory), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES,
                    CommitHooks.NONE);
            String payload = "x".repeat(OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
            OutboxRecord record = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
                    .payload(payload).build(Clock.systemUTC());

            repository.save(record);

            assertThat(repository.findById(record.getId())).get().extracting(OutboxRecord::getPayload)
                    .isEqualTo(payload);
        } finally {
            factory.destroy();
        }
    }

    @Test
    final void schemaCreationBuildsTheChangelogsColumns() throws SQLException {
        assertThat(createdRecordTypes(Map.of())).isEqualTo(recordTypes(outboxColumns(database)));
    }

    // Found by a Spring Boot application on embedded H2 without ddl-auto: Boot's default there, create-drop, made
    // Hibernate re-create the outbox table without the generated sequence_no, and every write failed.
    @ParameterizedTest
    @ValueSource(strings = {"create", "create-drop", "update"})
    final void withTheOutboxSchemaFilterHibernatesDdlLeavesTheChangelogsTableAsItIs(String action)
            throws SQLException {
        Map<String, ColumnShape> before = outboxColumns(database);
        LocalContainerEntityManagerFactoryBean factory = entityManagerFactory(database, Map.of(HBM2DDL_AUTO, action,
                SCHEMA_FILTER_PROVIDER, OutboxTableSchemaFilter.class.getName()));
        try {
            EntityManagerFactory entityManagerFactory = Objects.requireNonNull(factory.getObject());
            JpaOutboxRecordRepository repository = JpaOutboxRecordRepository.create(entityManagerFactory,
                    new JpaTransactionManager(entityManagerFactory), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES,
                    CommitHooks.NONE);
            OutboxRecord record = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced")
                    .payload("{}").build(Clock.systemUTC());

            repository.save(record);

            assertThat(repository.findById(record.getId())).get().extracting(OutboxRecord::getSequence)
                    .as("numbered by the database").isNotNull();
        } finally {
            factory.destroy();
        }
        assertThat(outboxColumns(database)).as("after %s and the factory's close", action).isEqualTo(before);
    }

    @Test
    final void theOutboxSchemaFilterStillValidatesTheTable() {
        assertThatCode(() -> entityManagerFactory(database, Map.of(HBM2DDL_AUTO, "validate",
                SCHEMA_FILTER_PROVIDER, OutboxTableSchemaFilter.class.getName())).destroy())
                .doesNotThrowAnyException();
        assertThat(new OutboxTableSchemaFilter().getValidateFilter()).isSameAs(SchemaFilter.ALL);
    }

    /** An entity manager factory with the outbox entity alone, so that no other entity's tables come into play. */
    private static LocalContainerEntityManagerFactoryBean entityManagerFactory(TestDatabase database,
            Map<String, String> properties) {
        LocalContainerEntityManagerFactoryBean factory = new LocalContainerEntityManagerFactoryBean();
        factory.setDataSource(database.dataSource());
        factory.setManagedTypes(PersistenceManagedTypes.of(OutboxRecordEntity.class.getName()));
        factory.setJpaVendorAdapter(new HibernateJpaVendorAdapter());
        factory.setJpaPropertyMap(properties);
        factory.afterPropertiesSet();
        return factory;
    }

    /**
     * The outbox_record columns Hibernate creates in another new database. Defaults and sequence_no's auto-increment
     * are left out: they are the changelog's alone, and the entity never relies on them.
     */
    private Map<String, String> createdRecordTypes(Map<String, String> settings) throws SQLException {
        try (TestDatabase created = TestDatabase.create(databaseKind())) {
            Map<String, String> properties = new HashMap<>(settings);
            properties.put(HBM2DDL_AUTO, "create");
            entityManagerFactory(created, properties).destroy();
            return recordTypes(outboxColumns(created));
        }
    }

    /** The statements schema update would run, written to a script only: the database stays as it is. */
    private List<String> updateScript(Path directory, Map<String, String> settings) throws IOException {
        Path script = directory.resolve("update.sql");
        Map<String, String> properties = new HashMap<>(settings);
        properties.put(HBM2DDL_AUTO, "none");
        properties.put("jakarta.persistence.schema-generation.scripts.action", "update");
        properties.put("jakarta.persistence.schema-generation.scripts.create-target", script.toString());
        entityManagerFactory(database, properties).destroy();
        assertThat(script).as("Hibernate's update script").exists();
        return Files.readAllLines(script, StandardCharsets.UTF_8).stream().filter(line -> !line.isBlank()).toList();
    }

    /** The columns of every outbox table as {@code table.column}, lower-case. */
    private static Map<String, ColumnShape> outboxColumns(TestDatabase database) throws SQLException {
        Map<String, ColumnShape> columns = new TreeMap<>();
        try (Connection connection = database.dataSource().getConnection()) {
            DatabaseMetaData metaData = connection.getMetaData();
            try (ResultSet rows = metaData.getColumns(connection.getCatalog(), connection.getSchema(), "%", "%")) {
                while (rows.next()) {
                    String table = lower(rows.getString("TABLE_NAME"));
                    if (table.startsWith("outbox_")) {
                        columns.put(table + "." + lower(rows.getString("COLUMN_NAME")),
                                new ColumnShape(rows.getString("TYPE_NAME"), rows.getInt("COLUMN_SIZE"),
                                        rows.getInt("DECIMAL_DIGITS"), rows.getString("IS_NULLABLE"),
                                        rows.getString("IS_AUTOINCREMENT"), rows.getString("COLUMN_DEF")));
                    }
                }
            }
        }
        return columns;
    }

    /** The outbox_record columns' types and nullability. */
    private static Map<String, String> recordTypes(Map<String, ColumnShape> columns) {
        Map<String, String> types = new TreeMap<>();
        columns.forEach((name, column) -> {
            if (name.startsWith("outbox_record.")) {
                types.put(name, column.type() + "(" + column.size() + "," + column.digits() + ") nullable="
                        + column.nullable());
            }
        });
        return types;
    }

    private static String lower(String name) {
        return name.toLowerCase(Locale.ROOT);
    }

    /** What {@link DatabaseMetaData#getColumns} says of a column. */
    private record ColumnShape(String type, int size, int digits, String nullable, String autoIncrement,
            @Nullable String defaultValue) {
    }
}
