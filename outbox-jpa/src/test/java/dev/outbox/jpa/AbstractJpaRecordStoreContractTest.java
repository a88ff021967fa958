package dev.outbox.jpa;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.AbstractDatabaseRecordStoreContractTest;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import dev.outbox.jpa.testing.JpaOutboxFixture;
import java.util.function.Function;

/** The store contract of outbox-core with the JPA write repository. */
abstract class AbstractJpaRecordStoreContractTest extends AbstractDatabaseRecordStoreContractTest {

    @Override
    protected final WriteFixture createFixture(TestDatabase.Kind kind, Function<TestDatabase, OutboxTables> tables) {
        return JpaOutboxFixture.create(kind, OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES, tables);
    }
}
