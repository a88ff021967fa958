package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.jpa.dialect.DatabaseDialect;
import dev.outbox.jpa.testing.JdbcOutboxFixture;
import dev.outbox.jpa.testing.TestDatabase;
import dev.outbox.spi.PartitionStore;
import dev.outbox.spi.RecordStore;
import dev.outbox.spi.RecordStoreContract;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/** The store contract of outbox-core, run against the JDBC write repository and the JDBC store, without JPA. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcRecordStoreContractTest extends RecordStoreContract {

    private JdbcOutboxFixture fixture;
    private JdbcPartitionStore partitions;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createStores() {
        fixture = JdbcOutboxFixture.create(databaseKind(), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES);
        partitions = new JdbcPartitionStore(fixture.database().dataSource(),
                DatabaseDialect.detect(fixture.database().dataSource()));
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
}
