package dev.outbox.boot;

import dev.outbox.jpa.dialect.OutboxTables;
import dev.outbox.jpa.dialect.SchemaCheck;
import dev.outbox.jpa.dialect.TablesLocation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Every outbox's settings against the application's beans and databases, the default outbox's and each named one's,
 * before the first outbox table is made: a bad one used to stop the start only when that outbox was made, after the
 * outboxes before it had created their tables. Checks the {@code data-source} and {@code transaction-manager} bean
 * names, that each configured schema exists ({@link SchemaCheck}), and that no two outboxes take the same tables.
 * Runs once, whichever outbox asks first; the handler ids are checked when the named outbox is made, since the handlers
 * may need the database initialized.
 */
final class OutboxSettingsCheck {

    private static final Logger log = LoggerFactory.getLogger(OutboxSettingsCheck.class);

    private final ListableBeanFactory beans;
    private final OutboxProperties properties;
    private final @Nullable DataSource defaultDataSource;
    private @Nullable Map<String, DataSource> namedDataSources;

    OutboxSettingsCheck(ListableBeanFactory beans, OutboxProperties properties, @Nullable DataSource defaultDataSource) {
        this.beans = beans;
        this.properties = properties;
        this.defaultDataSource = defaultDataSource;
    }

    /**
     * Checks every outbox's settings, the first time it is called.
     *
     * @throws IllegalArgumentException for a bean name that names no such bean, or two outboxes on the same tables
     * @throws IllegalStateException for a schema that does not exist, naming the property and the value
     */
    synchronized void run() {
        if (namedDataSources != null) {
            return;
        }
        Map<String, DataSource> dataSources = new LinkedHashMap<>();
        properties.outboxes().forEach((name, settings) -> {
            dataSources.put(name, dataSource(name, settings));
            requireTransactionManager(name, settings);
        });
        if (defaultDataSource != null) {
            SchemaCheck.requireSchema(defaultDataSource, properties.tables());
        }
        dataSources.forEach((name, dataSource) ->
                SchemaCheck.requireSchema(dataSource, properties.outboxes().get(name).tables(name)));
        refuseSharedTables(dataSources);
        namedDataSources = dataSources;
    }

    /** The DataSource of the named outbox {@code name}; after {@link #run()}. */
    DataSource dataSource(String name) {
        run();
        return Objects.requireNonNull(Objects.requireNonNull(namedDataSources).get(name), name);
    }

    private DataSource dataSource(String name, OutboxProperties.Named settings) {
        String bean = Objects.requireNonNull(settings.dataSource());
        // the message says all there is: Spring's own exception beneath it would be the line people read first
        if (!beans.containsBean(bean) || !beans.isTypeMatch(bean, DataSource.class)) {
            throw new IllegalArgumentException("outbox.outboxes." + name + ".data-source is '" + bean + "', which is "
                    + "no DataSource bean; the DataSource beans are "
                    + Arrays.toString(beans.getBeanNamesForType(DataSource.class)));
        }
        return beans.getBean(bean, DataSource.class);
    }

    /** By its type alone: a JPA transaction manager made now would wait for the database initialization. */
    private void requireTransactionManager(String name, OutboxProperties.Named settings) {
        String bean = settings.transactionManager();
        if (bean == null || bean.isBlank()) {
            return;
        }
        if (!beans.containsBean(bean) || !beans.isTypeMatch(bean, PlatformTransactionManager.class)) {
            throw new IllegalArgumentException("outbox.outboxes." + name + ".transaction-manager is '" + bean
                    + "', which is no PlatformTransactionManager bean; those beans are "
                    + Arrays.toString(beans.getBeanNamesForType(PlatformTransactionManager.class)));
        }
    }

    /**
     * Fails when two outboxes take the same tables: where the databases tell where the tables are, the same tables of
     * one database, whichever DataSources reach them; else the same tables of one DataSource object.
     */
    private void refuseSharedTables(Map<String, DataSource> dataSources) {
        if (dataSources.isEmpty()) {
            return; // the default outbox alone: nothing to ask its database, nothing to log
        }
        List<Tables> outboxes = new ArrayList<>();
        if (defaultDataSource != null) {
            outboxes.add(Tables.locate("the default outbox (outbox.*)", defaultDataSource, properties.tables()));
        }
        dataSources.forEach((name, dataSource) -> outboxes.add(Tables.locate("outbox.outboxes." + name, dataSource,
                properties.outboxes().get(name).tables(name))));
        logUnlocated(outboxes);
        for (int i = 1; i < outboxes.size(); i++) {
            Tables tables = outboxes.get(i);
            outboxes.subList(0, i).stream().filter(tables::clashesWith).findFirst().ifPresent(other -> {
                throw new IllegalArgumentException(tables.owner() + " uses the tables of " + other.owner() + ": "
                        + tables.shared(other) + "; give it another table-prefix or schema");
            });
        }
    }

    /** One line for the outboxes whose database could not tell where their tables are, with the first reason. */
    private static void logUnlocated(List<Tables> outboxes) {
        List<Tables> unlocated = outboxes.stream().filter(tables -> tables.location() == null).toList();
        if (unlocated.isEmpty()) {
            return;
        }
        log.info("Outbox: cannot ask the database where the tables of {} are ({}); those are told apart from the other "
                + "outboxes' by their DataSource object only", unlocated.stream().map(Tables::owner).toList(),
                unlocated.get(0).unlocatedBecause());
        unlocated.forEach(tables -> log.debug("Outbox: the database of {} did not tell where its tables are: {}",
                tables.owner(), tables.unlocatedBecause()));
    }

    /**
     * The tables an outbox takes: two outboxes need different ones. {@code location} is where they are as the
     * database tells, null when it cannot ({@code unlocatedBecause} says why).
     */
    private record Tables(String owner, DataSource dataSource, OutboxTables tables, @Nullable TablesLocation location,
            @Nullable String unlocatedBecause) {

        static Tables locate(String owner, DataSource dataSource, OutboxTables tables) {
            try {
                return new Tables(owner, dataSource, tables, TablesLocation.read(dataSource, tables), null);
            } catch (RuntimeException e) {
                // not a reason to stop: the check falls back to the DataSource object; a DataSource that fails
                // altogether stops the start when the outbox is made, with its own message
                return new Tables(owner, dataSource, tables, null, String.valueOf(e.getMessage()));
            }
        }

        boolean clashesWith(Tables other) {
            return location != null && location.equals(other.location)
                    || dataSource == other.dataSource && tables.equals(other.tables);
        }

        /** What the two share, for the message. */
        String shared(Tables other) {
            return location != null && location.equals(other.location) ? location.toString()
                    : tables + " on the same DataSource";
        }
    }
}
