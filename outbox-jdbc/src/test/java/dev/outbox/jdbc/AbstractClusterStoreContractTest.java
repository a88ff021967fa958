package dev.outbox.jdbc;

import dev.outbox.jdbc.dialect.DatabaseDialect;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.dialect.SqlStatements;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.spi.InstanceStore;
import dev.outbox.spi.InstanceStoreContract;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.PartitionStoreContract;
import java.time.Instant;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.TestInstance;
import org.springframework.jdbc.core.JdbcTemplate;

/**
 * The cluster store contracts of outbox-core, run against the JDBC instance and partition stores on a real database.
 * The database's clock is read with the dialect's {@code clock.now}; the contracts wait for it to move.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractClusterStoreContractTest {

    private TestDatabase database;
    private SqlStatements sql;
    private JdbcTemplate jdbc;
    private JdbcInstanceStore instanceStore;
    private JdbcPartitionStore partitionStore;

    protected abstract TestDatabase.Kind databaseKind();

    /** The outbox tables in the new database: the default ones unless a subclass configures others. */
    protected OutboxTables tables(TestDatabase database) {
        return OutboxTables.defaults();
    }

    @BeforeAll
    final void createStores() {
        database = TestDatabase.create(databaseKind());
        OutboxTables tables = tables(database);
        OutboxSchemaInitializer.apply(database.dataSource(), tables);
        sql = DatabaseDialect.detect(database.dataSource(), tables);
        jdbc = new JdbcTemplate(database.dataSource());
        instanceStore = new JdbcInstanceStore(database.dataSource(), sql);
        partitionStore = new JdbcPartitionStore(database.dataSource(), sql);
    }

    @AfterAll
    final void dropDatabase() {
        if (database != null) {
            database.close();
        }
    }

    @BeforeEach
    final void resetTables() {
        jdbc.update("DELETE FROM " + sql.instanceTable());
        jdbc.update("UPDATE " + sql.partitionTable() + " SET owner_instance_id = NULL, epoch = 0");
    }

    private Instant databaseNow() {
        return Objects.requireNonNull(jdbc.queryForObject(sql.get("clock.now"),
                (rs, rowNum) -> sql.dialect().readTimestamp(rs, "db_now")));
    }

    @Nested
    class Instances extends InstanceStoreContract {

        @Override
        protected InstanceStore instanceStore() {
            return instanceStore;
        }

        @Override
        protected Instant databaseNow() {
            return AbstractClusterStoreContractTest.this.databaseNow();
        }
    }

    @Nested
    class Partitions extends PartitionStoreContract {

        @Override
        protected PartitionStore partitionStore() {
            return partitionStore;
        }

        @Override
        protected InstanceStore instanceStore() {
            return instanceStore;
        }

        @Override
        protected Instant databaseNow() {
            return AbstractClusterStoreContractTest.this.databaseNow();
        }
    }
}
