package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.OutboxRecordRepository;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.spi.FailedRecordAdministrationContract;
import dev.outbox.spi.RecordStore;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.TestInstance;

/** The FAILED-record administration contract of outbox-core on a real database, one subclass per database. */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class AbstractJdbcFailedRecordAdministrationTest extends FailedRecordAdministrationContract {

    private WriteFixture fixture;

    protected abstract TestDatabase.Kind databaseKind();

    @BeforeAll
    final void createStores() {
        fixture = JdbcOutboxFixture.create(databaseKind(), OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES,
                database -> OutboxTables.defaults());
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
}
