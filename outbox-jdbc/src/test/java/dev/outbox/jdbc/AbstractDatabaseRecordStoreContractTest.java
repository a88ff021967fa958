package dev.outbox.jdbc;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordStoreContract;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/**
 * The store contract of outbox-core on a real database: the JDBC record store with a write repository, one subclass
 * per repository (JPA, JDBC) and database.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class AbstractDatabaseRecordStoreContractTest extends RecordStoreContract {

    private WriteFixture fixture;
    private JdbcPartitionStore partitions;

    protected abstract TestDatabase.Kind databaseKind();

    /** The write repository under test on a fresh database of {@code kind}, on the tables {@code tables} gives. */
    protected abstract WriteFixture createFixture(TestDatabase.Kind kind,
            Function<TestDatabase, OutboxTables> tables);

    /** The outbox tables in the new database: the default ones unless a subclass configures others. */
    protected OutboxTables tables(TestDatabase database) {
        return OutboxTables.defaults();
    }

    @BeforeAll
    final void createStores() {
        fixture = createFixture(databaseKind(), this::tables);
        partitions = new JdbcPartitionStore(fixture.database().dataSource(), fixture.sql());
    }

    @AfterAll
    final void dropStores() {
        if (fixture != null) {
            fixture.close();
        }
    }

    @BeforeEach
    final void emptyTable() {
        fixture.deleteAllRecords();
    }

    @Override
    protected RecordStore recordStore() {
        return fixture.recordStore();
    }

    @Override
    protected OutboxRecordRepository repository() {
        return fixture.repository();
    }

    @Override
    protected PartitionStore partitions() {
        return partitions;
    }

    /** PostgreSQL's identity sequence tells (postgresql.xml); the other databases' files have no statement for it. */
    @Override
    protected boolean tellsHighestAssignedSequence() {
        return databaseKind() == TestDatabase.Kind.POSTGRES;
    }
}
