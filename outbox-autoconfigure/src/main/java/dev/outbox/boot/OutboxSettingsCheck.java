package dev.outbox.boot;

import dev.outbox.jdbc.dialect.SchemaCheck;
import dev.outbox.jdbc.dialect.SharedTablesCheck;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.jspecify.annotations.Nullable;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Every outbox's settings against the application's beans and databases, the default outbox's and each named one's,
 * before the first outbox table is made: a bad one used to stop the start only when that outbox was made, after the
 * outboxes before it had created their tables. Checks the {@code data-source} and {@code transaction-manager} bean
 * names, that each configured schema exists ({@link SchemaCheck}), and that no two outboxes take the same tables
 * ({@link SharedTablesCheck}). Runs once, whichever outbox asks first; the handler ids are checked when the named
 * outbox is made, since the handlers may need the database initialized.
 */
final class OutboxSettingsCheck {

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

    /** Fails when two outboxes take the same tables ({@link SharedTablesCheck}). */
    private void refuseSharedTables(Map<String, DataSource> dataSources) {
        if (dataSources.isEmpty()) {
            return; // the default outbox alone: nothing to ask its database, nothing to log
        }
        List<SharedTablesCheck.Claim> outboxes = new ArrayList<>();
        if (defaultDataSource != null) {
            outboxes.add(new SharedTablesCheck.Claim("the default outbox (outbox.*)", defaultDataSource,
                    properties.tables()));
        }
        dataSources.forEach((name, dataSource) -> outboxes.add(new SharedTablesCheck.Claim("outbox.outboxes." + name,
                dataSource, properties.outboxes().get(name).tables(name))));
        SharedTablesCheck.requireDistinct(outboxes);
    }
}
