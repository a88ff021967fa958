package dev.outbox.boot;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outbox.jdbc.JdbcOutboxStores;
import dev.outbox.jdbc.JdbcRecordStore;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordTransactions;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.jdbc.datasource.ConnectionHolder;
import org.springframework.orm.jpa.JpaTransactionManager;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronizationManager;

/** Which transactions transactional handlers get ({@link OutboxAssembly#recordTransactions}), on H2 with JPA. */
class RecordTransactionsWiringTest {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration.class,
                    org.springframework.boot.hibernate.autoconfigure.HibernateJpaAutoConfiguration.class,
                    org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration.class,
                    OutboxStoreAutoConfiguration.class,
                    OutboxHandlersAutoConfiguration.class,
                    OutboxWriteAutoConfiguration.class))
            .withPropertyValues(
                    "spring.datasource.url=jdbc:h2:mem:wiring_" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1",
                    "spring.jpa.hibernate.ddl-auto=none",
                    "outbox.schema-initialization.enabled=true");

    @Test
    void theJdbcStoreGetsTransactionsOfTheOutboxsTransactionManagerBoundToItsDataSource() {
        runner.run(context -> {
            PlatformTransactionManager transactionManager = context.getBean(PlatformTransactionManager.class);
            assertThat(transactionManager).isInstanceOf(JpaTransactionManager.class);
            RecordTransactions transactions = OutboxAssembly.recordTransactions(context.getBean(RecordStore.class),
                    context.getBean(JdbcOutboxStores.class), transactionManager, null,
                    context.getBean(OutboxProperties.class));

            assertThat(transactions).isNotNull().hasToString("JdbcRecordTransactions[" + transactionManager + "]");
            DataSource dataSource = context.getBean(DataSource.class);
            AtomicBoolean bound = new AtomicBoolean();
            transactions.inTransaction(() -> bound.set(
                    TransactionSynchronizationManager.getResource(dataSource) instanceof ConnectionHolder));
            assertThat(bound).as("the work's transaction, bound to the outbox's DataSource").isTrue();
        });
    }

    @Test
    void anApplicationsOwnRecordStoreGetsNoneUnlessTheApplicationDefinesThem() {
        runner.run(context -> {
            JdbcOutboxStores stores = context.getBean(JdbcOutboxStores.class);
            PlatformTransactionManager transactionManager = context.getBean(PlatformTransactionManager.class);
            RecordStore applications = new JdbcRecordStore(context.getBean(DataSource.class), stores.statements());
            RecordTransactions own = work -> work.run();
            OutboxProperties properties = context.getBean(OutboxProperties.class);

            assertThat(OutboxAssembly.recordTransactions(applications, stores, transactionManager, null, properties))
                    .isNull();
            assertThat(OutboxAssembly.recordTransactions(applications, stores, transactionManager, own, properties))
                    .isSameAs(own);
            assertThat(OutboxAssembly.recordTransactions(stores.records(), stores, transactionManager, own, properties))
                    .as("the application's replace the JDBC store's").isSameAs(own);
            assertThat(OutboxAssembly.recordTransactions(stores.records(), stores, null, null, properties))
                    .as("without a transaction manager").isNull();
        });
    }
}
