package dev.outbox.boot.transactions;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outbox.Outbox;
import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.boot.testing.DatabasePerTestClass;
import dev.outbox.boot.transactions.ContractApplication.OrderService;
import dev.outbox.boot.transactions.ContractApplication.Orders;
import dev.outbox.boot.transactions.ContractApplication.WriteAfterCommit;
import dev.outbox.boot.transactions.ContractApplication.WriteOnCommit;
import dev.outbox.jdbc.testing.TestDatabase;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.dao.DataIntegrityViolationException;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.jdbc.core.simple.JdbcClient;
import org.springframework.jdbc.datasource.DataSourceTransactionManager;
import org.springframework.transaction.NestedTransactionNotSupportedException;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * What commits with what: a record commits exactly when the business change written with it commits, on every
 * Spring transaction shape. Each test runs one shape and then reads the business rows ({@code contract_order}) and
 * the records in the database. One subclass per write path (the JPA starter, the JDBC starter, a named outbox) and
 * database; {@link EventShapes} and {@link JpaShapes} add the shapes of the event listener and of JPA where they
 * apply. docs/usage.md's "What commits with what" lists these outcomes.
 */
public abstract class AbstractTransactionContractTest extends DatabasePerTestClass implements ContractParts {

    private ConfigurableApplicationContext app;
    private TestDatabase otherDatabase;

    /** The properties that choose the write path under test. */
    protected abstract List<String> writePathProperties();

    /** The outbox under test. */
    @Override
    public abstract Outbox outbox();

    /** The repository behind {@link #outbox()}. */
    protected abstract OutboxRecordRepository repository();

    /** The table of {@link #outbox()}'s records. */
    protected abstract String recordTable();

    @BeforeAll
    final void startApplication() {
        jdbc().execute("CREATE TABLE contract_order (id VARCHAR(64) PRIMARY KEY)");
        otherDatabase = TestDatabase.create(databaseKind());
        new JdbcTemplate(otherDatabase.dataSource()).execute("CREATE TABLE other_order (id VARCHAR(64) PRIMARY KEY)");
        List<String> properties = new ArrayList<>(dataSourceProperties());
        properties.addAll(List.of(
                "spring.main.banner-mode=off",
                "spring.jpa.open-in-view=false",
                "spring.jpa.hibernate.ddl-auto=create-drop",
                "outbox.schema-initialization.enabled=true",
                "outbox.processing.enabled=false"));
        properties.addAll(writePathProperties());
        app = new SpringApplicationBuilder(ContractApplication.class)
                .web(WebApplicationType.NONE)
                .properties(properties.toArray(String[]::new))
                .run();
    }

    @AfterAll
    final void stopApplication() {
        if (app != null) {
            app.close();
        }
        if (otherDatabase != null) {
            otherDatabase.close();
        }
    }

    @BeforeEach
    final void emptyTables() {
        jdbc().update("DELETE FROM contract_order");
        jdbc().update("DELETE FROM " + recordTable());
        new JdbcTemplate(otherDatabase.dataSource()).update("DELETE FROM other_order");
    }

    // --- commit and rollback -------------------------------------------------------------------------------------

    @Test
    void aCommitWritesTheRecordWithTheBusinessChange() {
        transaction().executeWithoutResult(status -> placeOrder("order-1"));

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    void aRollbackWritesNeither() {
        assertThatThrownBy(() -> transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            throw new IllegalStateException("business rule violated");
        })).hasMessage("business rule violated");

        assertCommitted(List.of(), List.of());
    }

    @Test
    void aTransactionalMethodCommitsBoth() {
        service().place(outbox(), "order-1", false);

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    void aTransactionalMethodThatThrowsWritesNeither() {
        assertThatThrownBy(() -> service().place(outbox(), "order-1", true)).hasMessage("business rule violated");

        assertCommitted(List.of(), List.of());
    }

    @Test
    void aSaveOutsideAnyTransactionCommitsInOneOfItsOwn() {
        record("alone");

        assertCommitted(List.of(), List.of("alone"));
    }

    // --- transactions inside transactions -----------------------------------------------------------------------

    @Test
    void aRequiresNewTransactionInsideCommitsItsRecordWhenTheOuterRollsBack() {
        transaction().executeWithoutResult(outer -> {
            placeOrder("outer");
            transaction(TransactionDefinition.PROPAGATION_REQUIRES_NEW)
                    .executeWithoutResult(inner -> placeOrder("inner"));
            outer.setRollbackOnly();
        });

        assertCommitted(List.of("inner"), List.of("inner"));
    }

    @Test
    void aRequiresNewTransactionThatRollsBackLeavesTheOutersRecord() {
        transaction().executeWithoutResult(outer -> {
            placeOrder("outer");
            transaction(TransactionDefinition.PROPAGATION_REQUIRES_NEW).executeWithoutResult(inner -> {
                placeOrder("inner");
                inner.setRollbackOnly();
            });
            record("outer-again");
        });

        assertCommitted(List.of("outer"), List.of("outer", "outer-again"));
    }

    @Test
    void aTransactionJoinedWithRequiredSharesTheOutersFate() {
        transaction().executeWithoutResult(outer -> {
            transaction().executeWithoutResult(inner -> placeOrder("inner"));
            outer.setRollbackOnly();
        });

        assertCommitted(List.of(), List.of());
    }

    // --- savepoints ----------------------------------------------------------------------------------------------

    @Test
    void aRecordOfANestedTransactionThatRollsBackIsNeverInserted() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            placeOrder("outer");
            transaction(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                placeOrder("nested");
                nested.setRollbackOnly();
            });
        }), List.of("outer"), List.of("outer"));
    }

    @Test
    void theOnlyRecordOfATransactionInANestedOneThatRollsBackIsNeverInserted() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            orders().insert("outer");
            transaction(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                record("nested");
                nested.setRollbackOnly();
            });
        }), List.of("outer"), List.of());
    }

    @Test
    void aRecordOfANestedTransactionThatCompletesCommitsWithTheOuter() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            placeOrder("outer");
            transaction(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> placeOrder("nested"));
        }), List.of("nested", "outer"), List.of("nested", "outer"));
    }

    @Test
    void twoRecordsInARolledBackSavepointGoAndTheOneOutsideStays() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            record("before");
            transaction(TransactionDefinition.PROPAGATION_NESTED).executeWithoutResult(nested -> {
                record("inside-1");
                record("inside-2");
                nested.setRollbackOnly();
            });
            record("after");
        }), List.of(), List.of("after", "before"));
    }

    @Test
    void recordsInsertedByAReadInsideARolledBackSavepointAreInsertedAgainIfTheyCameBeforeIt() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            record("before");
            Object savepoint = outer.createSavepoint();
            record("inside");
            // the read inserts both pending records, inside the savepoint
            assertThat(repository().findByAggregateId("before")).hasSize(1);
            outer.rollbackToSavepoint(savepoint);
            record("after");
        }), List.of(), List.of("after", "before"));
    }

    @Test
    void aSavepointRolledBackTwiceDropsWhatEachRoundWrote() {
        nestedOrRefused(() -> transaction().executeWithoutResult(outer -> {
            record("kept");
            Object savepoint = outer.createSavepoint();
            record("first-try");
            outer.rollbackToSavepoint(savepoint);
            record("second-try");
            outer.rollbackToSavepoint(savepoint);
            outer.releaseSavepoint(savepoint);
        }), List.of(), List.of("kept"));
    }

    /**
     * Runs a shape with savepoints: where the transaction manager takes them (JDBC), the rows are as given; where it
     * refuses them ({@code JpaTransactionManager}), the refusal reaches the caller and nothing is written.
     */
    private void nestedOrRefused(Runnable shape, List<String> orders, List<String> records) {
        if (transactionManager() instanceof AbstractPlatformTransactionManager manager
                && manager.isNestedTransactionAllowed()) {
            shape.run();
            assertCommitted(orders, records);
        } else {
            assertThatThrownBy(shape::run).isInstanceOf(NestedTransactionNotSupportedException.class);
            assertCommitted(List.of(), List.of());
        }
    }

    // --- records saved while the transaction commits ------------------------------------------------------------

    @Test
    void aBeforeCommitListenerWritesTheTransactionsOnlyRecord() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            app.publishEvent(new WriteOnCommit(outbox(), "order-1"));
        });

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    void aBeforeCommitListenerWritesASecondRecordAfterADirectOne() {
        transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            app.publishEvent(new WriteOnCommit(outbox(), "order-1-again"));
        });

        assertCommitted(List.of("order-1"), List.of("order-1", "order-1-again"));
    }

    @Test
    void aBeforeCommitListenerOfATransactionThatRollsBackWritesNothing() {
        transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            app.publishEvent(new WriteOnCommit(outbox(), "order-1-again"));
            status.setRollbackOnly();
        });

        assertCommitted(List.of(), List.of());
    }

    @Test
    void aSynchronizationRegisteredBeforeTheFirstSaveWritesInItsBeforeCommit() {
        transaction().executeWithoutResult(status -> {
            onBeforeCommit(() -> record("from-synchronization"));
            placeOrder("order-1");
        });

        assertCommitted(List.of("order-1"), List.of("from-synchronization", "order-1"));
    }

    @Test
    void aSynchronizationRegisteredAfterTheFirstSaveWritesInItsBeforeCommit() {
        transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            onBeforeCommit(() -> record("from-synchronization"));
        });

        assertCommitted(List.of("order-1"), List.of("from-synchronization", "order-1"));
    }

    @Test
    void aSynchronizationsBeforeCommitWritesTheOnlyRecord() {
        transaction().executeWithoutResult(status -> {
            orders().insert("order-1");
            onBeforeCommit(() -> record("order-1"));
        });

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    void aSaveAfterTheCommitIsRefusedNotLost() {
        assertThatThrownBy(() -> transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
                @Override
                public void afterCommit() {
                    record("too-late");
                }
            });
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("has already committed");

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    @Test
    void anAfterCommitListenerWritesInATransactionOfItsOwn() {
        transaction().executeWithoutResult(status -> {
            placeOrder("order-1");
            app.publishEvent(new WriteAfterCommit(outbox(), "order-1-shipped"));
        });

        assertCommitted(List.of("order-1"), List.of("order-1", "order-1-shipped"));
    }

    // --- refused and failing -------------------------------------------------------------------------------------

    @Test
    void aReadOnlyTransactionRefusesARecord() {
        TransactionTemplate readOnly = transaction();
        readOnly.setReadOnly(true);

        assertThatThrownBy(() -> readOnly.executeWithoutResult(status -> record("order-1")))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("read-only");

        assertCommitted(List.of(), List.of());
    }

    @Test
    void aRecordThatFailsToInsertAtCommitRollsTheBusinessChangeBack() {
        OutboxRecord first = OutboxRecord.builder().aggregateId("order-1").eventType("OrderPlaced").payload("{}")
                .build(Clock.systemUTC());
        repository().save(first);

        assertThatThrownBy(() -> transaction().executeWithoutResult(status -> {
            orders().insert("order-2");
            repository().save(first); // the same id again: the insert before the commit fails
        })).isInstanceOf(DataIntegrityViolationException.class);

        assertCommitted(List.of(), List.of("order-1"));
    }

    @Test
    void aTransactionOfAnotherDatabaseOnlyIsNotTheBusinessTransaction() {
        TransactionTemplate otherTransaction = new TransactionTemplate(
                new DataSourceTransactionManager(otherDatabase.dataSource()));
        JdbcClient other = JdbcClient.create(otherDatabase.dataSource());

        Boolean joined = otherTransaction.execute(status -> outbox().isTransactionActive());
        assertThat(joined).isFalse();
        assertThatThrownBy(() -> otherTransaction.executeWithoutResult(status -> {
            other.sql("INSERT INTO other_order (id) VALUES ('order-1')").update();
            record("order-1");
        })).isInstanceOf(IllegalStateException.class).hasMessageContaining("not on the outbox's DataSource");

        assertThat(other.sql("SELECT COUNT(*) FROM other_order").query(Long.class).single()).isZero();
        assertCommitted(List.of(), List.of());
    }

    @Test
    void aRecordWrittenInATransactionOfItsOwnDatabaseInsideAnotherDatabasesCommits() {
        TransactionTemplate otherTransaction = new TransactionTemplate(
                new DataSourceTransactionManager(otherDatabase.dataSource()));

        otherTransaction.executeWithoutResult(status -> transaction().executeWithoutResult(own -> {
            assertThat(outbox().isTransactionActive()).isTrue();
            placeOrder("order-1");
        }));

        assertCommitted(List.of("order-1"), List.of("order-1"));
    }

    // --- the shapes' parts ---------------------------------------------------------------------------------------

    @Override
    public final ConfigurableApplicationContext app() {
        return app;
    }

    protected final PlatformTransactionManager transactionManager() {
        return app.getBean(PlatformTransactionManager.class);
    }

    @Override
    public final TransactionTemplate transaction() {
        return new TransactionTemplate(transactionManager());
    }

    protected final TransactionTemplate transaction(int propagation) {
        TransactionTemplate template = transaction();
        template.setPropagationBehavior(propagation);
        return template;
    }

    @Override
    public final Orders orders() {
        return app.getBean(Orders.class);
    }

    private OrderService service() {
        return app.getBean(OrderService.class);
    }

    /** The business change and its record. */
    protected final void placeOrder(String id) {
        orders().insert(id);
        record(id);
    }

    @Override
    public final void record(String aggregateId) {
        outbox().schedule("{}", aggregateId, "OrderPlaced");
    }

    private static void onBeforeCommit(Runnable action) {
        TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {
            @Override
            public void beforeCommit(boolean readOnly) {
                action.run();
            }
        });
    }

    /** The business rows and the records' aggregate ids in the database, each sorted. */
    @Override
    public final void assertCommitted(List<String> orders, List<String> records) {
        assertThat(jdbc().queryForList("SELECT id FROM contract_order ORDER BY id", String.class))
                .as("business rows").isEqualTo(orders);
        assertThat(jdbc().queryForList("SELECT aggregate_id FROM " + recordTable() + " ORDER BY aggregate_id",
                String.class)).as("records").isEqualTo(records);
    }

    @Override
    public final TestDatabase otherDatabase() {
        return otherDatabase;
    }

    @Override
    public final JdbcTemplate jdbc() {
        return new JdbcTemplate(database().dataSource());
    }
}
