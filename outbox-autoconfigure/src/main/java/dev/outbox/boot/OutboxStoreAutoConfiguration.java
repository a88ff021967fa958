package dev.outbox.boot;

import dev.outbox.admin.OutboxAdmin;
import dev.outbox.cluster.ClusterCoordinator;
import dev.outbox.handler.OutboxHandlers;
import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.monitoring.OutboxMonitor;
import dev.outbox.node.LocalWakeUps;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordAdministration;
import dev.outbox.spi.RecordStatistics;
import dev.outbox.spi.RecordStore;
import java.time.Clock;
import javax.sql.DataSource;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.info.BuildProperties;
import org.springframework.boot.sql.init.dependency.DependsOnDatabaseInitialization;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The outbox's database: its dialect, its schema when asked for, the stores, this instance's identity, and the
 * operations over the stores (monitor, admin). Beans the application defines replace these.
 */
@AutoConfiguration(afterName = {
        "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration",
        "org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration",
        "org.springframework.boot.liquibase.autoconfigure.LiquibaseAutoConfiguration"})
@ConditionalOnBean(DataSource.class)
@ConditionalOnBooleanProperty(name = "outbox.enabled", matchIfMissing = true)
@EnableConfigurationProperties(OutboxProperties.class)
public class OutboxStoreAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    Clock outboxClock() {
        return Clock.systemUTC();
    }

    /**
     * Every outbox's settings (the default one's and each of {@code outbox.outboxes}), checked against the beans and
     * databases before the first outbox table is made.
     */
    @Bean
    OutboxSettingsCheck outboxSettingsCheck(ListableBeanFactory beans, OutboxProperties properties,
            ObjectProvider<DataSource> dataSource) {
        return new OutboxSettingsCheck(beans, properties, dataSource.getIfAvailable());
    }

    @Bean
    @ConditionalOnBooleanProperty("outbox.schema-initialization.enabled")
    OutboxSchemaInitialization outboxSchemaInitialization(DataSource dataSource, OutboxProperties properties,
            OutboxSettingsCheck settingsCheck) {
        return new OutboxSchemaInitialization(dataSource, properties.tables(), settingsCheck);
    }

    /** The application's own Liquibase runs one instance at a time, as the outbox's schema initialization does. */
    @Bean
    static OutboxLiquibaseSerialization outboxLiquibaseSerialization(ObjectProvider<OutboxProperties> properties) {
        return new OutboxLiquibaseSerialization(properties);
    }

    /** The database's statements on the tables {@code outbox.schema} and {@code outbox.table-prefix} name. */
    @Bean
    @ConditionalOnMissingBean
    SqlStatements outboxSqlStatements(DataSource dataSource, OutboxProperties properties) {
        return DatabaseDialect.detect(dataSource, properties.tables());
    }

    /** The JDBC stores, with LISTEN/NOTIFY where the database has it unless {@code outbox.listen-notify=false}. */
    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean
    @DependsOnDatabaseInitialization
    JdbcOutboxStores outboxStores(DataSource dataSource, SqlStatements statements, OutboxProperties properties,
            OutboxSettingsCheck settingsCheck) {
        settingsCheck.run();
        return JdbcOutboxStores.create(dataSource, statements, properties.listenNotify());
    }

    @Bean
    @ConditionalOnMissingBean
    RecordStore outboxRecordStore(JdbcOutboxStores stores) {
        return stores.records();
    }

    @Bean
    @ConditionalOnMissingBean
    InstanceStore outboxInstanceStore(JdbcOutboxStores stores) {
        return stores.instances();
    }

    @Bean
    @ConditionalOnMissingBean
    PartitionStore outboxPartitionStore(JdbcOutboxStores stores) {
        return stores.partitions();
    }

    @Bean
    @ConditionalOnMissingBean
    OutboxInstanceIdentity outboxInstanceIdentity(OutboxProperties properties, Environment environment,
            ObjectProvider<BuildProperties> build) {
        return OutboxInstanceIdentity.of(properties.instance(), environment, build.getIfAvailable());
    }

    /** Wake-ups raised in this JVM: by committed writes and by the admin; the processing node listens to them. */
    @Bean
    @ConditionalOnMissingBean
    LocalWakeUps outboxLocalWakeUps() {
        return new LocalWakeUps();
    }

    /**
     * Backlog and cluster figures for metrics, health and the actuator endpoint, read at most once per
     * {@code outbox.metrics.refresh-interval}. An instance without background processing owns no partition; its
     * handlers tell which records wait for another version's.
     */
    @Bean
    @ConditionalOnMissingBean
    OutboxMonitor outboxMonitor(RecordStore store, JdbcOutboxStores stores, ObjectProvider<ClusterCoordinator> cluster,
            InstanceStore instances, PartitionStore partitions, ObjectProvider<OutboxHandlers> handlers, Clock clock,
            OutboxProperties properties) {
        return OutboxAssembly.monitor(OutboxAssembly.storeSide(RecordStatistics.class, store, stores), handlers.getIfAvailable(),
                cluster.getIfAvailable(), instances, partitions, clock, properties);
    }

    /** Operations on FAILED records; a retry wakes the local processor. */
    @Bean
    @ConditionalOnMissingBean
    OutboxAdmin outboxAdmin(RecordStore store, JdbcOutboxStores stores, LocalWakeUps wakeUps, Clock clock) {
        return OutboxAssembly.admin(OutboxAssembly.storeSide(RecordAdministration.class, store, stores), wakeUps, clock);
    }

}
