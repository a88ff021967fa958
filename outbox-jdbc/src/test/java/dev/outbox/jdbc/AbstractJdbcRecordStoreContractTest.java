package dev.outbox.jdbc;

import dev.outbox.OutboxRecord;
import dev.outbox.jdbc.dialect.OutboxTables;
import dev.outbox.jdbc.testing.JdbcOutboxFixture;
import dev.outbox.jdbc.testing.TestDatabase;
import dev.outbox.jdbc.testing.WriteFixture;
import java.util.function.Function;

/** The store contract of outbox-core with the JDBC write repository, without JPA. */
abstract class AbstractJdbcRecordStoreContractTest extends AbstractDatabaseRecordStoreContractTest {

    @Override
    protected final WriteFixture createFixture(TestDatabase.Kind kind, Function<TestDatabase, OutboxTables> tables) {
        return JdbcOutboxFixture.create(kind, OutboxRecord.DEFAULT_MAX_PAYLOAD_BYTES, tables);
    }
}
