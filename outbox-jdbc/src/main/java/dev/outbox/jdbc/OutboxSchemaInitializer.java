package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SchemaCheck;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import liquibase.Scope;
import liquibase.UpdateSummaryEnum;
import liquibase.UpdateSummaryOutputEnum;
import liquibase.changelog.ChangeLogParameters;
import liquibase.changelog.visitor.DefaultChangeExecListener;
import liquibase.command.CommandScope;
import liquibase.command.core.UpdateCommandStep;
import liquibase.command.core.helpers.ChangeExecListenerCommandStep;
import liquibase.command.core.helpers.DatabaseChangelogCommandStep;
import liquibase.command.core.helpers.DbUrlConnectionArgumentsCommandStep;
import liquibase.command.core.helpers.ShowSummaryArgument;
import liquibase.configuration.LiquibaseConfiguration;
import liquibase.database.Database;
import liquibase.database.DatabaseFactory;
import liquibase.database.jvm.JdbcConnection;
import liquibase.logging.LogService;
import liquibase.resource.ClassLoaderResourceAccessor;
import liquibase.ui.LoggerUIService;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates or upgrades the outbox tables by running the outbox Liquibase changelog against a {@link DataSource}.
 *
 * <p>For applications that do not run Liquibase themselves. Applications that do can instead include
 * {@value #CHANGELOG} from their own master changelog; the two ways recognise each other's changesets, so switching
 * between them, or using both, applies every changeset once. On the default tables both use Liquibase's default
 * tracking tables ({@code DATABASECHANGELOG}, {@code DATABASECHANGELOGLOCK}) in the connection's default schema.
 *
 * <p>Instances that start together apply the changelog one at a time: each run holds a lock of the database
 * (PostgreSQL advisory lock, MariaDB and MySQL {@code GET_LOCK}) for its set of tables, and the later ones find the
 * schema up to date.
 *
 * <p>Needs {@code org.liquibase:liquibase-core} and {@code dev.outbox:db-changelog} on the class path; both are
 * optional dependencies of this module.
 */
public final class OutboxSchemaInitializer {

    /** Class-path location of the outbox master changelog (module {@code db-changelog}). */
    public static final String CHANGELOG = "db/changelog/outbox/db.changelog-master.xml";

    private static final Logger log = LoggerFactory.getLogger(OutboxSchemaInitializer.class);

    /**
     * The changelog parameter holding the tables' prefix ({@code outbox_} unless set); an application running the
     * changelog from its own Liquibase sets it there, e.g. {@code spring.liquibase.parameters.outbox.table-prefix}.
     */
    public static final String TABLE_PREFIX_PARAMETER = "outbox.table-prefix";

    private static final String ANALYTICS_ENABLED_KEY = "liquibase.analytics.enabled";

    private OutboxSchemaInitializer() {
    }

    /**
     * Applies every changeset of {@value #CHANGELOG} that the database has not run yet; does nothing when the schema
     * is up to date. Borrows one connection from {@code dataSource} and gives it back; the data source stays open.
     *
     * @throws IllegalStateException if the changelog cannot be read or applied
     */
    public static void apply(DataSource dataSource) {
        apply(dataSource, OutboxTables.defaults());
    }

    /**
     * Applies the changelog to {@code tables}: the changelog parameter {@value #TABLE_PREFIX_PARAMETER} is their
     * prefix, and their schema, if any, is Liquibase's default schema. It must exist: a missing one fails before
     * Liquibase runs, in one line naming the property ({@link SchemaCheck}). Tables with a prefix other than the
     * default are tracked in changelog tables of their own, {@code <prefix>changelog} and
     * {@code <prefix>changelog_lock}, so that several sets of outbox tables can share a schema.
     *
     * @throws IllegalStateException if the schema does not exist, or the changelog cannot be read or applied
     */
    public static void apply(DataSource dataSource, OutboxTables tables) {
        Outcome outcome = applyReporting(dataSource, tables);
        if (outcome.applied() == 0) {
            log.info("Outbox schema of {} on {} is up to date: 0 changeset(s) of {} applied", tables,
                    outcome.database(), CHANGELOG);
        } else {
            log.info("Outbox schema of {} on {}: applied {} changeset(s) of {}", tables, outcome.database(),
                    outcome.applied(), CHANGELOG);
        }
    }

    /**
     * {@code dataSource} with every connection holding the schema lock of {@code tables} from when it is taken until
     * it is closed, for an application's own Liquibase run that includes the outbox changelog: instances starting
     * together on an empty database then run it one after the other, instead of racing to create Liquibase's tables.
     * {@link #apply(DataSource, OutboxTables)} takes the same lock.
     */
    public static DataSource serializingSchemaChanges(DataSource dataSource, OutboxTables tables) {
        return new SchemaLockingDataSource(Objects.requireNonNull(dataSource, "dataSource"),
                Objects.requireNonNull(tables, "tables"));
    }

    /** {@link #apply(DataSource)} without the log line; returns the number of changesets run. */
    static int applyCounting(DataSource dataSource) {
        return applyCounting(dataSource, OutboxTables.defaults());
    }

    /** {@link #apply(DataSource, OutboxTables)} without the log line; returns the number of changesets run. */
    static int applyCounting(DataSource dataSource, OutboxTables tables) {
        return applyReporting(dataSource, tables).applied();
    }

    /** What one run did: the number of changesets it ran, on which database product. */
    private record Outcome(int applied, String database) {
    }

    private static Outcome applyReporting(DataSource dataSource, OutboxTables tables) {
        Objects.requireNonNull(dataSource, "dataSource");
        Objects.requireNonNull(tables, "tables");
        SchemaCheck.requireSchema(dataSource, tables);
        try {
            return update(dataSource, tables);
        } catch (Exception e) {
            throw new IllegalStateException("Could not apply the outbox changelog " + CHANGELOG + " to " + tables
                    + ": " + e.getMessage(), e);
        }
    }

    @SuppressWarnings("try") // ClassLoaderResourceAccessor.close() declares Exception
    private static Outcome update(DataSource dataSource, OutboxTables tables) throws Exception {
        ClassLoader classLoader = OutboxSchemaInitializer.class.getClassLoader();
        try (ClassLoaderResourceAccessor resources = new ClassLoaderResourceAccessor(classLoader)) {
            Map<String, Object> scope = new HashMap<>();
            scope.put(Scope.Attr.resourceAccessor.name(), resources);
            scope.put(Scope.Attr.classLoader.name(), classLoader);
            // Liquibase's console output would go to System.out; a library sends it to the log instead.
            scope.put(Scope.Attr.ui.name(), new LoggerUIService());
            // Liquibase logs about 60 INFO lines for a new schema (three per changeset); apply(...) sums them up in
            // one line, so only its warnings and errors pass.
            scope.put(Scope.Attr.logService.name(), new WarningsOnlyLogService(
                    Scope.getCurrentScope().get(Scope.Attr.logService, LogService.class)));
            if (!isConfigured(ANALYTICS_ENABLED_KEY)) {
                // Running the library's own changelog is no reason to send usage data; an explicit setting wins.
                scope.put(ANALYTICS_ENABLED_KEY, false);
            }
            return Scope.child(scope, () -> runUpdate(dataSource, tables));
        }
    }

    private static Outcome runUpdate(DataSource dataSource, OutboxTables tables) throws Exception {
        Connection connection = dataSource.getConnection();
        Database database;
        try {
            database = DatabaseFactory.getInstance().findCorrectDatabaseImplementation(new JdbcConnection(connection));
        } catch (Exception | Error e) {
            try {
                connection.close();
            } catch (SQLException closeFailure) {
                e.addSuppressed(closeFailure);
            }
            throw e;
        }
        try (SchemaLock lock = SchemaLock.acquire(connection, tables)) {
            String schema = tables.schema().orElse(null);
            if (schema != null) {
                // MariaDB and MySQL have no schemas within a database: Liquibase takes the database as the catalog.
                database.setDefaultSchemaName(schema);
                database.setDefaultCatalogName(database.supportsSchemas() ? null : schema);
            }
            if (!tables.tablePrefix().equals(OutboxTables.DEFAULT_PREFIX)) {
                database.setDatabaseChangeLogTableName(tables.tablePrefix() + "changelog");
                database.setDatabaseChangeLogLockTableName(tables.tablePrefix() + "changelog_lock");
            }
            ChangeLogParameters parameters = new ChangeLogParameters(database);
            parameters.set(TABLE_PREFIX_PARAMETER, tables.tablePrefix());
            // Told of every changeset the update runs (the update step wraps it in its own listener).
            DefaultChangeExecListener listener = new DefaultChangeExecListener();
            new CommandScope(UpdateCommandStep.COMMAND_NAME)
                    .addArgumentValue(DbUrlConnectionArgumentsCommandStep.DATABASE_ARG, database)
                    .addArgumentValue(UpdateCommandStep.CHANGELOG_FILE_ARG, CHANGELOG)
                    .addArgumentValue(DatabaseChangelogCommandStep.CHANGELOG_PARAMETERS, parameters)
                    .addArgumentValue(ChangeExecListenerCommandStep.CHANGE_EXEC_LISTENER_ARG, listener)
                    .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY, UpdateSummaryEnum.OFF)
                    .addArgumentValue(ShowSummaryArgument.SHOW_SUMMARY_OUTPUT, UpdateSummaryOutputEnum.LOG)
                    .execute();
            return new Outcome(listener.getDeployedChangeSets().size(), database.getDatabaseProductName());
        } finally {
            // Closes Liquibase's wrapper and so hands the connection back to the pool; the data source stays open.
            database.close();
        }
    }

    private static boolean isConfigured(String key) {
        return Scope.getCurrentScope().getSingleton(LiquibaseConfiguration.class)
                .getCurrentConfiguredValue(null, null, key).found();
    }
}
