package dev.outbox.testing;

import dev.outbox.OutboxRecordRepository;
import dev.outbox.spi.FailedRecordAdministrationContract;
import dev.outbox.spi.RecordStore;

/** The FAILED-record administration contract against the in-memory store. */
class InMemoryFailedRecordAdministrationTest extends FailedRecordAdministrationContract {

    private final InMemoryRecordStore store = new InMemoryRecordStore();

    @Override
    protected RecordStore recordStore() {
        return store;
    }

    @Override
    protected OutboxRecordRepository repository() {
        return store;
    }
}
